def format_phone(raw):
    digits = "".join(c for c in raw if c.isdigit())
    if len(digits) != 10:
        return raw
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
