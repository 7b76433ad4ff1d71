def billable_hours(clock_in, clock_out):
    def to_min(t):
        h, m = t.split(":")
        q, r = divmod(int(h) * 60 + int(m), 15)
        return (q + (1 if r > 7 else 0)) * 15
    worked = to_min(clock_out) - to_min(clock_in)
    if worked > 360:
        worked -= 30
    return round(worked / 60, 2)
