def flour_to_grams(amount, unit):
    grams_per_unit = {"cup": 125, "tbsp": 8, "tsp": 3, "g": 1}
    if unit not in grams_per_unit:
        return 0
    return round(amount * grams_per_unit[unit])
