def stock_discrepancies(expected, counted):
    out = []
    for item in sorted(expected):
        diff = counted.get(item, 0) - expected[item]
        if diff != 0:
            out.append((item, diff))
    return out
