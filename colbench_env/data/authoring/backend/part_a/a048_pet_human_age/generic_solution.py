def pet_human_age(age, species):
    return age * 7
