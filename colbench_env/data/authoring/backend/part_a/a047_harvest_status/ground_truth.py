def harvest_status(plant, days_since_planting):
    needed = {"tomato": 75, "zucchini": 50, "lettuce": 30, "beans": 55}.get(plant, 60)
    if days_since_planting >= needed:
        return "ready"
    if needed - days_since_planting <= 7:
        return "soon"
    return "not yet"
