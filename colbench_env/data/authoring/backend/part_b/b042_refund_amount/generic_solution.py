def refund_amount(price, days_before):
    if days_before >= 14:
        return round(price, 2)
    if days_before >= 7:
        return round(price * 0.5, 2)
    return 0.0
