def golf_handicap(scores, course_rating):
    recent = scores[-5:]
    if len(recent) < 3:
        return 0.0
    best = sorted(s - course_rating for s in recent)[:3]
    hcp = sum(best) / 3 * 0.96
    return round(min(hcp, 36.0), 1)
