def loyalty_points(purchases):
    points = 0
    for amount in purchases:
        if amount <= 0:
            continue
        earned = int(amount)
        if amount >= 100:
            earned *= 2
        points += earned
    if points >= 500:
        points += 50
    return points
