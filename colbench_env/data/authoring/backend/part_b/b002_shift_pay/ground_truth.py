def shift_pay(hours, hourly_rate, is_holiday):
    paid = hours - 0.5 if hours > 5 else hours
    rate = hourly_rate * 2 if is_holiday else hourly_rate
    regular = min(paid, 8)
    overtime = max(paid - 8, 0)
    return round(regular * rate + overtime * rate * 1.5, 2)
