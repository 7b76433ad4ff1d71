def solar_bill(generated_kwh, used_kwh, days):
    return round((used_kwh - generated_kwh) * 0.22, 2)
