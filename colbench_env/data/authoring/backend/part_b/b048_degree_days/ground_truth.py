def degree_days(daily_means):
    heating = sum((15.5 - t for t in daily_means if t < 15.5), 0.0)
    cooling = sum((t - 22 for t in daily_means if t > 22), 0.0)
    return (round(heating, 1), round(cooling, 1))
