def clean_readings(values):
    positive = sorted(v for v in values if v > 0)
    if not positive:
        return []
    n = len(positive)
    mid = n // 2
    median = positive[mid] if n % 2 else (positive[mid - 1] + positive[mid]) / 2
    return [v for v in values if 0 < v <= 3 * median]
