def late_penalty(score, days_late):
    if days_late <= 0:
        return score
    return max(0, round(score * (1 - 0.1 * days_late)))
