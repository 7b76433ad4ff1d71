def clean_readings(values):
    import statistics
    if len(values) < 2:
        return list(values)
    m = statistics.mean(values)
    s = statistics.pstdev(values)
    return [v for v in values if abs(v - m) <= 2 * s]
