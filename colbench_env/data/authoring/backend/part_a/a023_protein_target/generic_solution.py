def protein_target(weight_kg, goal):
    per_kg = {"maintain": 1.2, "build": 1.8, "cut": 2.0}.get(goal, 0.8)
    return round(weight_kg * per_kg)
