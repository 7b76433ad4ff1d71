def watering_interval(plant_type, temperature_c):
    days = {"succulent": 10, "cactus": 14, "fern": 4, "herb": 3}.get(plant_type, 7)
    if temperature_c > 25:
        days = max(1, days - 1)
    return days
