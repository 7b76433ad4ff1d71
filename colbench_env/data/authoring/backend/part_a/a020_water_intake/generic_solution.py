def water_intake(weight_kg, exercise_minutes, hot_day):
    liters = weight_kg * 0.033 + exercise_minutes / 30 * 0.35
    if hot_day:
        liters += 0.5
    return round(liters, 2)
