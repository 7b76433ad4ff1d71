def watering_interval(plant_type, temperature_c):
    days = {"succulent": 14, "fern": 3, "herb": 2}.get(plant_type, 7)
    if temperature_c > 30:
        days = max(1, days // 2)
    elif temperature_c < 10:
        days *= 2
    return days
