def avatar_initials(name):
    titles = {"dr", "mr", "mrs", "ms", "prof"}
    words = [w for w in name.split() if w.lower().strip(".") not in titles]
    if not words:
        return "??"
    if len(words) == 1:
        w = words[0]
        return w[0].upper() + w[1:2].lower()
    return (words[0][0] + words[-1][0]).upper()
