def leaderboard(scores):
    totals = {name: sum(sorted(games, reverse=True)[:3]) for name, games in scores.items()}
    return sorted(totals, key=lambda name: (-totals[name], name))
