def golf_handicap(scores, course_rating):
    if not scores:
        return 0.0
    diffs = sorted(s - course_rating for s in scores)[:8]
    return round(sum(diffs) / len(diffs) * 0.96, 1)
