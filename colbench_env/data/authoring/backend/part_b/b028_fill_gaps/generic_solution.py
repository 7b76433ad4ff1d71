def fill_gaps(readings):
    known = [r for r in readings if r is not None]
    mean = round(sum(known) / len(known), 2) if known else 0
    return [r if r is not None else mean for r in readings]
