def plants_per_row(row_length_cm, plant):
    spacing = {"tomato": 60, "pepper": 45, "lettuce": 25, "carrot": 5}.get(plant, 30)
    usable = row_length_cm - 20
    if usable < 0:
        return 0
    return int(usable // spacing) + 1
