def dice_score(dice):
    values = set(dice)
    counts = sorted((dice.count(v) for v in values), reverse=True)
    if counts[0] == 5:
        return 50
    if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
        return 40
    if counts[0] == 4:
        return 35
    if counts[:2] == [3, 2]:
        return 25
    for run in ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}):
        if run <= values:
            return 20
    if counts[0] == 3:
        return sum(dice)
    return 0
