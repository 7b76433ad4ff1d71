def first_free_slot(busy, duration):
    blocks = [(s, e + 10) for s, e in busy] + [(720, 780)]
    start = 510
    while start + duration <= 990:
        end = start + duration
        if all(end <= s or start >= e for s, e in blocks):
            return start
        start += 15
    return -1
