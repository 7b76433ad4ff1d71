def sleep_score(hours, wakeups):
    score = min(hours / 8, 1) * 100 - wakeups * 5
    return max(0, int(score))
