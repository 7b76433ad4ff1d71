def outfit_advice(temp_c, wind_kmh, rain_mm):
    if rain_mm > 0:
        return "umbrella"
    if temp_c < 10:
        return "coat"
    if temp_c < 18:
        return "jacket"
    return "t-shirt"
