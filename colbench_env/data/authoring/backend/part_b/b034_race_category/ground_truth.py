def race_category(age, gender):
    prefix = "M" if gender.strip().lower() in ("m", "male") else "W"
    if age < 20:
        band = "U20"
    elif age < 35:
        band = "Open"
    else:
        band = "V" + str(min(age // 5 * 5, 70))
    return prefix + band
