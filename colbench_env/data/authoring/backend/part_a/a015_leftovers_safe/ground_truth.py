def leftovers_safe(days_old, food_type, refrigerated):
    if not refrigerated:
        return days_old == 0
    limits = {"meat": 3, "fish": 2, "rice": 1, "soup": 4}
    return days_old <= limits.get(food_type, 5)
