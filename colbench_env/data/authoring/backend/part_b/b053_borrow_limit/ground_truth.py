def borrow_limit(member_type, overdue_items):
    base = {"adult": 8, "child": 4, "staff": 20}.get(member_type.lower(), 8)
    if overdue_items >= 3:
        return 0
    if overdue_items > 0:
        return base // 2
    return base
