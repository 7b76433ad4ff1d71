def payoff_months(balance, monthly_payment):
    if balance <= 0:
        return 0
    if monthly_payment <= balance * 0.015:
        return -1
    months = 0
    while balance > 0:
        balance = balance * 1.015 - monthly_payment
        months += 1
    return months
