def refund_amount(price, days_before):
    if days_before >= 30:
        refund = price - 5
    elif days_before >= 14:
        refund = price * 0.5
    elif days_before >= 7:
        refund = price * 0.25
    else:
        refund = 0.0
    return round(max(refund, 0.0), 2)
