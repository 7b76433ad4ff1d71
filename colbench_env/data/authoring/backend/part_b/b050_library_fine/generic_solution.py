def library_fine(days_late, item_type):
    rates = {"book": 0.25, "dvd": 1.00, "magazine": 0.25}
    return round(max(days_late, 0) * rates.get(item_type.lower(), 0.25), 2)
