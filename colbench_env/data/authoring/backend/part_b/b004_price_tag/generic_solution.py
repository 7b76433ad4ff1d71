def price_tag(cost, category):
    markups = {"food": 0.25, "electronics": 0.20}
    return round(cost * (1 + markups.get(category.lower(), 0.30)), 2)
