def dice_winner(rolls):
    return max(rolls, key=lambda name: sum(rolls[name]))
