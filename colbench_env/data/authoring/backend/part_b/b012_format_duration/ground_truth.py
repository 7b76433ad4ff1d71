def format_duration(minutes):
    days, rest = divmod(minutes, 480)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h {mins:02d}m"
    if hours:
        return f"{hours}h {mins:02d}m"
    return f"{mins}m"
