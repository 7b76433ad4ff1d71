def budget_split(income):
    base = min(income, 6000)
    extra = max(income - 6000, 0)
    return {
        "needs": round(base * 0.55, 2),
        "wants": round(base * 0.20, 2),
        "savings": round(base * 0.20 + extra, 2),
        "giving": round(base * 0.05, 2),
    }
