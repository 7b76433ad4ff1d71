def seat_label(row_index, seat_index):
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    if row_index < len(letters):
        row = letters[row_index]
    else:
        row = letters[row_index - len(letters)] * 2
    return f"{row}-{seat_index + 1}"
