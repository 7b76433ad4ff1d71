def reorder_quantity(stock, daily_sales, lead_days):
    reorder_point = daily_sales * lead_days
    if stock > reorder_point:
        return 0
    return max(daily_sales * 30 - stock, 0)
