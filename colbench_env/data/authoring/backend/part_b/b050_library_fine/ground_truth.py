def library_fine(days_late, item_type):
    rates = {"book": 0.25, "dvd": 1.00, "magazine": 0.10}
    rate = rates.get(item_type.lower(), 0.25)
    charged = max(days_late - 2, 0)
    return round(min(charged * rate, 10.0), 2)
