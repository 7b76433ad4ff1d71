def heart_rate_zone(age, bpm):
    max_hr = 208 - 0.7 * age
    percent = bpm / max_hr * 100
    if percent < 50:
        return "rest"
    if percent < 60:
        return "easy"
    if percent < 70:
        return "fat burn"
    if percent < 85:
        return "cardio"
    return "peak"
