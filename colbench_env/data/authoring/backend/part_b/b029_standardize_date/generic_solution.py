def standardize_date(text):
    from datetime import datetime
    for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%B %d %Y", "%b %d, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).strftime("%Y-%m-%d")
        except ValueError:
            pass
    return None
