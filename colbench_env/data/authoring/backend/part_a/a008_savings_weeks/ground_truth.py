def savings_weeks(goal, weekly_deposit, current_savings):
    weeks = 0
    saved = current_savings
    deposit = weekly_deposit
    while saved < goal:
        saved += deposit
        deposit += 2
        weeks += 1
    return weeks
