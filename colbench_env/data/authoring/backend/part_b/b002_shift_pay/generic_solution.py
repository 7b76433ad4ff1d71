def shift_pay(hours, hourly_rate, is_holiday):
    rate = hourly_rate * 1.5 if is_holiday else hourly_rate
    regular = min(hours, 8)
    overtime = max(hours - 8, 0)
    return round(regular * rate + overtime * rate * 1.5, 2)
