def degree_days(daily_means):
    heating = sum(max(0, 18 - t) for t in daily_means)
    cooling = sum(max(0, t - 18) for t in daily_means)
    return (round(heating, 1), round(cooling, 1))
