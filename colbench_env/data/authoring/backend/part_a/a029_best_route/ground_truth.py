def best_route(routes):
    best = min(routes, key=lambda r: (r["minutes"] * 0.5 + r["tolls"], r["minutes"]))
    return best["name"]
