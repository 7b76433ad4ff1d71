def best_value(items):
    best = None
    for name, (price, quantity) in items.items():
        if quantity <= 0 or quantity > 24:
            continue
        key = (price / quantity, -quantity, name)
        if best is None or key < best:
            best = key
    return best[2] if best is not None else "none"
