def protein_target(weight_kg, goal):
    per_kg = {"maintain": 1.6, "build": 2.2, "cut": 2.4}.get(goal, 1.2)
    return 5 * round(weight_kg * per_kg / 5)
