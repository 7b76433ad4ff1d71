def scale_recipe(ingredients, servings):
    factor = servings / 4
    return {name: round(amount * factor, 2) for name, amount in ingredients.items()}
