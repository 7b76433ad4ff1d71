def valid_username(name):
    import re
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{3,15}", name):
        return False
    if "__" in name or name.endswith("_"):
        return False
    return "admin" not in name.lower()
