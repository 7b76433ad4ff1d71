def dedupe_contacts(contacts):
    seen = set()
    out = []
    for c in contacts:
        key = c.get("email", "").lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(c["name"])
    return out
