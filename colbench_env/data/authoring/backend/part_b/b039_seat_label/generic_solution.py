def seat_label(row_index, seat_index):
    return f"{chr(65 + row_index)}{seat_index + 1}"
