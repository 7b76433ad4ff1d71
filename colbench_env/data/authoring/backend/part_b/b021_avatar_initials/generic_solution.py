def avatar_initials(name):
    return "".join(w[0].upper() for w in name.split())[:2]
