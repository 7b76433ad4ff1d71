def fertilizer_bags(area_m2, lawn_condition):
    import math
    grams = area_m2 * {"poor": 40, "average": 25, "good": 15}[lawn_condition]
    return max(1, math.ceil(grams / 2000))
