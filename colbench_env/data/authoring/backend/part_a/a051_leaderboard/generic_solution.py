def leaderboard(scores):
    return sorted(scores, key=lambda name: sum(scores[name]), reverse=True)
