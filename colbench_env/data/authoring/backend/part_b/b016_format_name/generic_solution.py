def format_name(full_name):
    parts = full_name.split()
    if len(parts) == 1:
        return parts[0].title()
    return parts[-1].title() + ", " + " ".join(p.title() for p in parts[:-1])
