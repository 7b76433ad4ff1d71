def invoice_late_fee(amount, days_late):
    import math
    if days_late <= 7:
        return 0.0
    periods = math.ceil(days_late / 30)
    fee = 25 + amount * 0.02 * periods
    cap = max(25.0, amount * 0.2)
    return round(min(fee, cap), 2)
