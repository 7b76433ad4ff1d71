def budget_split(income):
    return {
        "needs": round(income * 0.50, 2),
        "wants": round(income * 0.30, 2),
        "savings": round(income * 0.20, 2),
    }
