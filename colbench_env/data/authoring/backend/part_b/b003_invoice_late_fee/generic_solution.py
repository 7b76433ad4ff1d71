def invoice_late_fee(amount, days_late):
    import math
    if days_late <= 0:
        return 0.0
    return round(amount * 0.015 * math.ceil(days_late / 30), 2)
