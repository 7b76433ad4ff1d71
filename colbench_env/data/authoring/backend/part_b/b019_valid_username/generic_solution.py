def valid_username(name):
    import re
    return re.fullmatch(r"[A-Za-z0-9_]{3,20}", name) is not None
