def electricity_bill(kwh):
    cost = 9.50
    cost += min(kwh, 100) * 0.12
    cost += min(max(kwh - 100, 0), 200) * 0.18
    cost += max(kwh - 300, 0) * 0.25
    return round(cost, 2)
