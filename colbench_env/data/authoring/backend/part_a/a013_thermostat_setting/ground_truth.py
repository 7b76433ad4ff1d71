def thermostat_setting(hour, is_weekend, someone_home):
    if not someone_home:
        return 16
    if hour >= 22 or hour < 7:
        return 18
    return 22 if is_weekend else 21
