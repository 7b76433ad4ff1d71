def cash_to_deposit(counts):
    total = round(sum(float(d) * n for d, n in counts.items()), 2)
    if total <= 200:
        return 0.0
    return float(int((total - 200) // 5) * 5)
