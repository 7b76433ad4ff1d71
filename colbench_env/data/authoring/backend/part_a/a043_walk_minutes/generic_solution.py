def walk_minutes(dog_size, temperature_c):
    minutes = {"small": 30, "medium": 45, "large": 60}.get(dog_size, 30)
    if temperature_c > 30:
        minutes //= 2
    return minutes
