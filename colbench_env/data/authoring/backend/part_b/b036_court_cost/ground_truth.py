def court_cost(start_hour, minutes, is_member):
    import math
    cost = 0.0
    t = start_hour * 60
    for _ in range(math.ceil(minutes / 30)):
        cost += 12.0 if 17 <= (t // 60) % 24 < 21 else 7.0
        t += 30
    if is_member:
        cost *= 0.75
    return round(cost, 2)
