def pet_food_portion(weight_kg, age_years, species):
    per_kg = 25 if species == "dog" else 20
    return round(weight_kg * per_kg)
