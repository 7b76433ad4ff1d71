def ticket_price(base, days_before, age):
    price = base
    if age < 12:
        price *= 0.5
    elif age >= 65:
        price *= 0.8
    return round(price, 2)
