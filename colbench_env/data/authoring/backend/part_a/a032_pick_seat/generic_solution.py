def pick_seat(available_seats):
    for seat in available_seats:
        if seat[-1] in "AF":
            return seat
    return available_seats[0] if available_seats else None
