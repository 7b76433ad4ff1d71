def bmi_report(weight_kg, height_m):
    bmi = round(weight_kg / height_m ** 2, 1)
    if bmi < 18.5:
        return (bmi, "Underweight")
    if bmi < 25:
        return (bmi, "Normal weight")
    if bmi < 30:
        return (bmi, "Overweight")
    return (bmi, "Obese")
