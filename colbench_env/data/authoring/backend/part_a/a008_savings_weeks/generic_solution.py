def savings_weeks(goal, weekly_deposit, current_savings):
    import math
    remaining = goal - current_savings
    if remaining <= 0:
        return 0
    return math.ceil(remaining / weekly_deposit)
