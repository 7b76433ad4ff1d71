def fertilizer_bags(area_m2, lawn_condition):
    grams_per_m2 = {"poor": 35, "average": 30, "good": 20}.get(lawn_condition, 30)
    return round(area_m2 * grams_per_m2 / 1000, 2)
