def format_name(full_name):
    particles = {"van", "von", "de", "da", "del"}
    words = full_name.split()
    if not words:
        return ""
    if len(words) == 1:
        return words[0].upper()
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in particles:
        i -= 1
    surname = " ".join([w.lower() for w in words[i:-1]] + [words[-1].upper()])
    initials = "".join(w[0].upper() + "." for w in words[:i])
    return f"{surname}, {initials}"
