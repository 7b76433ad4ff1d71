def calories_burned(activity, minutes, weight_kg):
    met = {"walking": 3.8, "running": 8.0, "cycling": 7.5, "swimming": 7.0}.get(activity, 5.0)
    return round(met * weight_kg * minutes / 60, 1)
