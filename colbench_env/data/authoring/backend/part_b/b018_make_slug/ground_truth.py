def make_slug(title):
    import re
    stop = {"a", "an", "the", "of", "and"}
    words = [w for w in re.findall(r"[a-z0-9]+", title.lower()) if w not in stop]
    slug = ""
    for w in words:
        cand = w if not slug else slug + "_" + w
        if len(cand) > 40:
            break
        slug = cand
    return slug
