def best_route(routes):
    return min(routes, key=lambda r: r["minutes"])["name"]
