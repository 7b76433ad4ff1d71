def standardize_date(text):
    months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    t = text.strip().lower().replace(",", " ")
    try:
        if "-" in t:
            y, m, d = (int(p) for p in t.split("-"))
        elif "/" in t:
            d, m, y = (int(p) for p in t.split("/"))
        else:
            parts = t.split()
            if len(parts) != 3:
                return "invalid"
            m = months.index(parts[0][:3]) + 1
            d, y = int(parts[1]), int(parts[2])
    except ValueError:
        return "invalid"
    if y < 100:
        y += 2000
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return "invalid"
    return f"{y:04d}-{m:02d}-{d:02d}"
