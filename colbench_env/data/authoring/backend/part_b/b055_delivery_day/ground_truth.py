def delivery_day(order_day, order_hour):
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    i = days.index(order_day.strip().lower()[:3])
    if i >= 5:
        i, business_days = 0, 1
    else:
        business_days = 1 if order_hour < 14 else 2
    while business_days:
        i = (i + 1) % 7
        if i < 5:
            business_days -= 1
    return days[i]
