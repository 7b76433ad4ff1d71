def chore_rotation(names, week):
    chores = ["dishes", "laundry", "vacuuming", "trash"]
    return {name: chores[(i + week) % len(chores)] for i, name in enumerate(names)}
