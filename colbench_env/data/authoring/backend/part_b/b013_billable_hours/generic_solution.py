def billable_hours(clock_in, clock_out):
    h1, m1 = map(int, clock_in.split(":"))
    h2, m2 = map(int, clock_out.split(":"))
    return round(((h2 * 60 + m2) - (h1 * 60 + m1)) / 60, 2)
