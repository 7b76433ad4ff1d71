def first_free_slot(busy, duration):
    start = 540
    for s, e in sorted(busy):
        if s - start >= duration:
            return start
        start = max(start, e)
    if 1020 - start >= duration:
        return start
    return -1
