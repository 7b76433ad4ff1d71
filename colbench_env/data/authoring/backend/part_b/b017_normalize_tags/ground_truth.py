def normalize_tags(tags):
    out = []
    for tag in tags:
        t = tag.strip().lstrip("#").strip().lower()
        t = "-".join(t.split())
        if len(t) < 2 or t in out:
            continue
        out.append(t)
        if len(out) == 5:
            break
    return out
