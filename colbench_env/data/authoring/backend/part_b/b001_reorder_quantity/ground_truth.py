def reorder_quantity(stock, daily_sales, lead_days):
    reorder_point = daily_sales * (lead_days + 3)
    if stock > reorder_point:
        return 0
    needed = daily_sales * 30 - stock
    if needed <= 0:
        return 0
    return -(-needed // 12) * 12
