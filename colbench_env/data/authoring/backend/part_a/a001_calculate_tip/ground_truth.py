def calculate_tip(bill, service_quality):
    import math
    rates = {"bad": 0.05, "okay": 0.12, "good": 0.18, "excellent": 0.25}
    tip = bill * rates.get(service_quality, 0.15)
    return math.ceil(round(tip, 2))
