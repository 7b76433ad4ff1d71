def thermostat_setting(hour, is_weekend, someone_home):
    if not someone_home:
        return 15
    if hour >= 23 or hour < 6:
        return 17
    return 20
