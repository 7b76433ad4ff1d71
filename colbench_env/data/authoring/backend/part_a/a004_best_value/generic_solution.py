def best_value(items):
    return min(items, key=lambda name: items[name][0] / items[name][1])
