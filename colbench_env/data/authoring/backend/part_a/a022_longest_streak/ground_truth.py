def longest_streak(daily_steps):
    best = current = 0
    for steps in daily_steps:
        if steps >= 8000:
            current += 1
            best = max(best, current)
        elif steps < 5000:
            current = 0
    return best
