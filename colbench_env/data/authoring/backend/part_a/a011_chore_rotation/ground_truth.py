def chore_rotation(names, week):
    slots = ["dishes", "trash", "vacuum", "laundry"]
    slots += ["free"] * max(0, len(names) - len(slots))
    return {name: slots[(i + week - 1) % len(slots)] for i, name in enumerate(names)}
