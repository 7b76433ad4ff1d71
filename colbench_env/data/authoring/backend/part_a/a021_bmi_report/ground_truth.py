def bmi_report(weight_kg, height_cm):
    bmi = round(weight_kg / (height_cm / 100) ** 2, 1)
    if bmi < 18.5:
        category = "under"
    elif bmi < 25:
        category = "normal"
    elif bmi < 30:
        category = "over"
    else:
        category = "obese"
    return (bmi, category)
