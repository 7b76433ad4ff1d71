def delivery_day(order_day, order_hour):
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    i = days.index(order_day.strip().lower()[:3])
    return days[(i + 1) % 7]
