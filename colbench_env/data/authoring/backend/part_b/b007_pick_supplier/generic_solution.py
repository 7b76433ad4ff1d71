def pick_supplier(quotes):
    if not quotes:
        return None
    return min(quotes, key=lambda q: q["price"])["name"]
