def cash_to_deposit(counts):
    return round(sum(float(d) * n for d, n in counts.items()), 2)
