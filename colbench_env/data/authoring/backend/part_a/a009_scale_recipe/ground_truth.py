def scale_recipe(ingredients, servings):
    import math
    scaled = {}
    for name, amount in ingredients.items():
        new_amount = amount * servings / 6
        if name == "eggs":
            scaled[name] = math.ceil(new_amount)
        elif name == "salt":
            scaled[name] = round(min(new_amount, amount * 2), 1)
        else:
            scaled[name] = round(new_amount, 1)
    return scaled
