def commute_cost(distance_km, days, mode):
    if mode == "car":
        return round(distance_km * 2 * days * 0.30 + 12 * days, 2)
    if mode == "bus":
        return round(min(days * 2 * 2.75, 95.0), 2)
    return 0.0
