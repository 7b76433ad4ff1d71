def pet_food_portion(weight_kg, age_years, species):
    daily = weight_kg * (20 if species == "dog" else 15)
    if age_years < 1:
        daily *= 2
    elif age_years >= 8:
        daily *= 0.8
    return round(daily / 2)
