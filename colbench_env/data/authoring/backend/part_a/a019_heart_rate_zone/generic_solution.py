def heart_rate_zone(age, bpm):
    percent = bpm / (220 - age) * 100
    if percent < 60:
        return "very light"
    if percent < 70:
        return "light"
    if percent < 80:
        return "moderate"
    if percent < 90:
        return "hard"
    return "maximum"
