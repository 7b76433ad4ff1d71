def sale_price(price, category):
    if category == "clothing":
        price = price * 0.7
    elif category == "electronics":
        if price > 200:
            price = price * 0.9
    elif category != "grocery":
        price = price * 0.85
    if category != "grocery":
        price = price * 1.08
    return round(price, 2)
