def sale_price(price, category):
    discounts = {"clothing": 0.20, "electronics": 0.10, "grocery": 0.05}
    return round(price * (1 - discounts.get(category, 0.0)), 2)
