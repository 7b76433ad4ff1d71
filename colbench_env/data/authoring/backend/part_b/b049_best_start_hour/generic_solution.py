def best_start_hour(prices, hours_needed):
    best_start, best_cost = -1, None
    for start in range(0, 24 - hours_needed + 1):
        cost = sum(prices[start:start + hours_needed])
        if best_cost is None or cost < best_cost:
            best_start, best_cost = start, cost
    return best_start
