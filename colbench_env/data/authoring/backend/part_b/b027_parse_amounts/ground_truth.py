def parse_amounts(raw):
    out = []
    for s in raw:
        t = s.strip().replace("$", "").replace(",", "").replace(" ", "")
        neg = t.startswith("(") and t.endswith(")")
        if neg:
            t = t[1:-1]
        mult = 1
        if t[-1:].lower() == "k":
            mult, t = 1000, t[:-1]
        try:
            v = float(t) * mult
        except ValueError:
            continue
        out.append(round(-v if neg else v, 2))
    return out
