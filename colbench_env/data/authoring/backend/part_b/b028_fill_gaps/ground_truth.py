def fill_gaps(readings):
    known = [r for r in readings if r is not None]
    if not known:
        return [0] * len(readings)
    out = []
    last = known[0]
    for r in readings:
        if r is not None:
            last = r
        out.append(last)
    return out
