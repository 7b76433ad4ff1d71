def electricity_bill(kwh):
    first = min(kwh, 300)
    second = min(max(kwh - 300, 0), 400)
    third = max(kwh - 700, 0)
    return round(9.5 + first * 0.12 + second * 0.15 + third * 0.20, 2)
