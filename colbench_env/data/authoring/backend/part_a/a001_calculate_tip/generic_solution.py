def calculate_tip(bill, service_quality):
    rates = {"poor": 0.10, "average": 0.15, "good": 0.18, "excellent": 0.20}
    return round(bill * rates.get(service_quality, 0.15), 2)
