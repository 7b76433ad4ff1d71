def thermostat_target(hour, day, occupied):
    if 7 <= hour < 22:
        return 20.0
    return 16.0
