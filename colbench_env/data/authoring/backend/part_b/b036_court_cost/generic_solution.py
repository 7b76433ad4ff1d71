def court_cost(start_hour, minutes, is_member):
    rate = 20.0
    cost = minutes / 60 * rate
    if is_member:
        cost *= 0.9
    return round(cost, 2)
