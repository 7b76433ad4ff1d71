def borrow_limit(member_type, overdue_items):
    base = {"adult": 10, "child": 5, "staff": 20}.get(member_type.lower(), 10)
    return max(base - overdue_items, 0)
