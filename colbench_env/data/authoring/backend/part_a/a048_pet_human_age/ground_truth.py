def pet_human_age(age, species):
    if species not in ("dog", "cat"):
        return age * 7
    if age <= 0:
        return 0
    if age == 1:
        return 15
    return 24 + (age - 2) * (5 if species == "dog" else 4)
