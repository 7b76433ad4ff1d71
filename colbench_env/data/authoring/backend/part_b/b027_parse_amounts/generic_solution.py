def parse_amounts(raw):
    out = []
    for s in raw:
        try:
            out.append(float(s.replace("$", "").replace(",", "")))
        except ValueError:
            out.append(0.0)
    return out
