def dice_score(dice):
    return sum(dice)
