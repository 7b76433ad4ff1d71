def split_tips(staff, total_tips):
    weights = {"bartender": 1.5, "server": 1.0, "busser": 0.5}
    points = {n: weights.get(r.lower(), 0.0) * h for n, (r, h) in staff.items()}
    total = sum(points.values())
    if total == 0:
        return {n: 0.0 for n in staff}
    return {n: round(total_tips * p / total, 2) for n, p in points.items()}
