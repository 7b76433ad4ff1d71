def price_tag(cost, category):
    import math
    markups = {"food": 0.30, "electronics": 0.15}
    price = round(cost * (1 + markups.get(category.lower(), 0.50)), 2)
    return round(math.ceil(price) - 0.01, 2)
