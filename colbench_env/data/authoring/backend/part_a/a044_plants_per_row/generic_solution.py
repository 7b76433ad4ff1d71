def plants_per_row(row_length_cm, plant):
    spacing = {"tomato": 45, "pepper": 40, "lettuce": 20, "carrot": 5}.get(plant, 30)
    return int(row_length_cm // spacing)
