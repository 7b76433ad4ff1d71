def leftovers_safe(days_old, food_type, refrigerated):
    return refrigerated and days_old <= 4
