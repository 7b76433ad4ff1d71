def jet_lag_days(time_zones, direction):
    return time_zones
