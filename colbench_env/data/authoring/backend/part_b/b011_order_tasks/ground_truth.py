def order_tasks(tasks):
    ranked = sorted(tasks, key=lambda t: (t["blocked"], t["due"], t["hours"], t["name"]))
    return [t["name"] for t in ranked]
