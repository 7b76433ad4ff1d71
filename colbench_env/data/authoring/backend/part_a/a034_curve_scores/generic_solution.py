def curve_scores(scores):
    top = max(scores)
    return [round(score * 100 / top) for score in scores]
