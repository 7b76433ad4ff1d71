def hotel_total(nightly_rate, nights):
    return round(nightly_rate * nights * 1.10, 2)
