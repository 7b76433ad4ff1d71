def best_start_hour(prices, hours_needed):
    best_start, best_cost = -1, None
    for start in range(7, 23 - hours_needed + 1):
        cost = round(sum(prices[start:start + hours_needed]), 6)
        if best_cost is None or cost <= best_cost:
            best_start, best_cost = start, cost
    return best_start
