def elo_update(rating, opponent, result):
    score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
    expected = 1 / (1 + 10 ** ((opponent - rating) / 400))
    k = 32 if rating < 1600 else 16
    return round(rating + k * (score - expected))
