def deadline_label(days_left):
    if days_left < 0:
        return "overdue"
    if days_left == 0:
        return "today"
    if days_left <= 3:
        return "soon"
    if days_left <= 14:
        return "upcoming"
    return "later"
