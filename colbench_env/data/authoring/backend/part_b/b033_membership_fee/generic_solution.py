def membership_fee(age, years_member):
    base = 100
    if age < 18 or age >= 65:
        base = 50
    return round(base * (0.9 if years_member >= 5 else 1.0), 2)
