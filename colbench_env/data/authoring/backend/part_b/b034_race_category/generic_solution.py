def race_category(age, gender):
    return gender.strip()[0].upper() + str(age // 10 * 10)
