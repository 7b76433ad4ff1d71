def loyalty_points(purchases):
    return int(sum(purchases))
