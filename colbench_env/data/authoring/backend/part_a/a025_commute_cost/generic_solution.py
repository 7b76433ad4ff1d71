def commute_cost(distance_km, days, mode):
    per_km = {"car": 0.5, "bus": 0.2, "bike": 0.0}.get(mode, 0.0)
    return round(distance_km * days * per_km, 2)
