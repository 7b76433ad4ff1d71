def flour_to_grams(amount, unit):
    grams_per_unit = {"cup": 120, "tbsp": 7.5, "tsp": 2.5, "g": 1}
    if unit not in grams_per_unit:
        raise ValueError("unknown unit: " + unit)
    return round(amount * grams_per_unit[unit], 1)
