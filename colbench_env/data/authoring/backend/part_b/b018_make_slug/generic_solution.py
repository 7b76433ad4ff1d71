def make_slug(title):
    import re
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
