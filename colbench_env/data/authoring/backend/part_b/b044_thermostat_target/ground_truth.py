def thermostat_target(hour, day, occupied):
    weekend = day >= 5
    if hour >= 23 or hour < 6:
        temp = 17.5
    elif weekend:
        temp = 21.0 if hour >= 8 else 17.5
    elif hour < 8 or hour >= 17:
        temp = 21.0
    else:
        temp = 16.0
    if occupied:
        temp = max(temp, 20.0)
    return temp
