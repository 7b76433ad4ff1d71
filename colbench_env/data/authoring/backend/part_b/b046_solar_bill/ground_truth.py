def solar_bill(generated_kwh, used_kwh, days):
    net = used_kwh - generated_kwh
    energy = net * 0.22 if net > 0 else net * 0.05
    return round(max(days * 0.90 + energy, 0.0), 2)
