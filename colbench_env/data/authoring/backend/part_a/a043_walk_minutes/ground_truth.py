def walk_minutes(dog_size, temperature_c):
    minutes = {"small": 20, "medium": 40, "large": 60}[dog_size]
    if temperature_c > 28:
        return minutes // 2
    if temperature_c < 0 and dog_size == "small":
        return 10
    return minutes
