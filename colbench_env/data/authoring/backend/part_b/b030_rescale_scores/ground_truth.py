def rescale_scores(values):
    lo, hi = min(values), max(values)
    if hi == lo:
        return [10.0 for _ in values]
    return [round(1 + 9 * (v - lo) / (hi - lo), 1) for v in values]
