def dice_winner(rolls):
    totals = {}
    for name, values in rolls.items():
        if values.count(1) >= 2:
            totals[name] = 0
        else:
            totals[name] = sum(v * 2 if v == 6 else v for v in values)
    best = max(totals.values())
    leaders = [name for name, total in totals.items() if total == best]
    return leaders[0] if len(leaders) == 1 else "tie"
