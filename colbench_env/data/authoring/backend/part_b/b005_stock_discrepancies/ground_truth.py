def stock_discrepancies(expected, counted):
    out = []
    for item in set(expected) | set(counted):
        exp = expected.get(item, 0)
        diff = counted.get(item, 0) - exp
        if abs(diff) > max(2, exp * 0.05):
            out.append((item, diff))
    out.sort(key=lambda p: (-abs(p[1]), p[0]))
    return out
