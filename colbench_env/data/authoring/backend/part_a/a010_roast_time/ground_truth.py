def roast_time(weight_kg, meat):
    import math
    rules = {"chicken": (45, 20), "beef": (40, 15), "pork": (50, 25)}
    per_kg, extra = rules.get(meat, (60, 0))
    minutes = weight_kg * per_kg + extra
    return math.ceil(minutes / 5) * 5
