def outfit_advice(temp_c, wind_kmh, rain_mm):
    if rain_mm > 5 or wind_kmh > 40:
        return "stay in"
    if rain_mm > 0:
        return "raincoat"
    if temp_c < 12:
        return "jacket"
    if temp_c < 22:
        return "sweater"
    return "t-shirt"
