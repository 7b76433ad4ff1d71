def preview_text(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + "..."
