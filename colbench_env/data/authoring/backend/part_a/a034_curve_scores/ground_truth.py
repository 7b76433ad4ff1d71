def curve_scores(scores):
    if not scores:
        return []
    bonus = min(100 - max(scores), 10)
    return [score + bonus for score in scores]
