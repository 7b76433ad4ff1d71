def late_penalty(score, days_late):
    if days_late <= 0:
        return score
    if days_late > 5:
        return 0
    return max(0, score - 10 * days_late)
