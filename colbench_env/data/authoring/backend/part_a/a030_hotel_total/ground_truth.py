def hotel_total(nightly_rate, nights):
    paid_nights = nights - nights // 7
    return round(nightly_rate * paid_nights * 1.12 + 25, 2)
