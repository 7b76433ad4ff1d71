def electricity_bill(kwh):
    return round(kwh * 0.15, 2)
