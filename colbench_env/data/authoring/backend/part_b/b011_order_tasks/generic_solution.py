def order_tasks(tasks):
    return [t["name"] for t in sorted(tasks, key=lambda t: t["due"])]
