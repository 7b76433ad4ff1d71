def roast_time(weight_kg, meat):
    per_kg = {"chicken": 40, "beef": 44, "pork": 55, "lamb": 44}.get(meat, 45)
    return round(weight_kg * per_kg)
