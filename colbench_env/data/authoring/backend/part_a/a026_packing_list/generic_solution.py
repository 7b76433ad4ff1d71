def packing_list(days, climate):
    items = {"shirts": days, "socks": days, "pants": max(1, days // 2), "underwear": days}
    if climate == "cold":
        items["jacket"] = 1
    return items
