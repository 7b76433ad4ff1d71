def payoff_months(balance, monthly_payment):
    import math
    if balance <= 0:
        return 0
    return math.ceil(balance / monthly_payment)
