def packing_list(days, climate):
    items = {
        "shirts": min(days, 7),
        "socks": min(days + 1, 8),
        "pants": max(1, (days + 2) // 3),
    }
    if climate == "cold":
        items["jacket"] = 1
        items["sweaters"] = 2
    elif climate == "hot":
        items["swimsuit"] = 1
        items["sunscreen"] = 1
    return items
