def jet_lag_days(time_zones, direction):
    import math
    if time_zones <= 2:
        return 0
    if direction == "east":
        return time_zones
    return math.ceil(time_zones / 1.5)
