def membership_fee(age, years_member):
    if age < 18:
        base = 60
    elif age >= 65:
        base = 90
    else:
        base = 180
    discount = min((years_member // 5) * 0.10, 0.30)
    return round(base * (1 - discount), 2)
