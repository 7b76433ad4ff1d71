def pick_seat(available_seats):
    kinds = {"A": 0, "F": 0, "C": 1, "D": 1}
    best = None
    for seat in available_seats:
        row, letter = int(seat[:-1]), seat[-1]
        if row == 13 or letter not in kinds:
            continue
        key = (kinds[letter], row, letter)
        if best is None or key < best[0]:
            best = (key, seat)
    return best[1] if best is not None else "none"
