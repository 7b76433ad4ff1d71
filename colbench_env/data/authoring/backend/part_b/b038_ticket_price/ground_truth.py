def ticket_price(base, days_before, age):
    price = base
    if days_before >= 30:
        price *= 0.8
    elif days_before <= 2:
        price *= 1.15
    if age < 12:
        price *= 0.5
    elif age >= 65:
        price *= 0.7
    return round(price, 2)
