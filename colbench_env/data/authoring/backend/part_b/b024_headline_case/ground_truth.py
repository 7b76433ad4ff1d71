def headline_case(text):
    small = {"a", "an", "the", "and", "or", "of", "in", "on", "to", "for"}
    words = text.split()
    out = []
    for i, w in enumerate(words):
        if len(w) >= 2 and w.isupper():
            out.append(w)
        elif w.lower() in small and 0 < i < len(words) - 1:
            out.append(w.lower())
        else:
            out.append("-".join(p[:1].upper() + p[1:].lower() for p in w.split("-")))
    return " ".join(out)
