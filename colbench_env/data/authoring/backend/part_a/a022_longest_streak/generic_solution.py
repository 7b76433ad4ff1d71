def longest_streak(daily_steps):
    best = current = 0
    for steps in daily_steps:
        if steps >= 10000:
            current += 1
            best = max(best, current)
        else:
            current = 0
    return best
