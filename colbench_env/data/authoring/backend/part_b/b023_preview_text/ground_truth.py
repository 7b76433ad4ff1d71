def preview_text(text, limit):
    if len(text) <= limit:
        return text
    out = ""
    for w in text.split():
        cand = w if not out else out + " " + w
        if len(cand) + 3 > limit:
            break
        out = cand
    return out.rstrip(",.;:!?") + "..."
