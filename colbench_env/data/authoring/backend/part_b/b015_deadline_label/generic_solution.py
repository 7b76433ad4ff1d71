def deadline_label(days_left):
    if days_left < 0:
        return "overdue"
    if days_left == 0:
        return "today"
    if days_left == 1:
        return "tomorrow"
    if days_left <= 7:
        return "this week"
    return "later"
