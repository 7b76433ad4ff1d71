def sleep_score(hours, wakeups):
    score = 100
    if hours < 8:
        score -= (8 - hours) * 10
    elif hours > 9.5:
        score -= 5
    score -= wakeups * 7
    return max(0, round(score))
