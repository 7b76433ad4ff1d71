def pick_supplier(quotes):
    ok = [q for q in quotes if q["days"] <= 10]
    if not ok:
        return "none"
    best = min(ok, key=lambda q: (q["price"] + 2 * q["days"], q["days"], q["name"]))
    return best["name"]
