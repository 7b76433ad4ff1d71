def harvest_status(plant, days_since_planting):
    needed = {"tomato": 70, "zucchini": 60, "lettuce": 45, "beans": 60}.get(plant, 60)
    return "ready" if days_since_planting >= needed else "not ready"
