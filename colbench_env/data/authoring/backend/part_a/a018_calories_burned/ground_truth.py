def calories_burned(activity, minutes, weight_kg):
    met = {"walking": 3.5, "running": 9.8, "cycling": 7.5, "swimming": 6.0}.get(activity, 4.0)
    return round(met * weight_kg * minutes / 60 * 0.9)
