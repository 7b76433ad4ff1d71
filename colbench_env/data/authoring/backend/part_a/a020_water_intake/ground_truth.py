def water_intake(weight_kg, exercise_minutes, hot_day):
    ml = weight_kg * 35 + exercise_minutes * 12
    if hot_day:
        ml += 500
    return round(ml / 1000, 1)
