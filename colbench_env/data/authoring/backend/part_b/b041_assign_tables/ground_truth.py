def assign_tables(guests, table_size):
    ordered = sorted(guests, key=lambda g: (g.split()[-1].lower(), g.lower()))
    seating = {}
    table, count = 1, 0
    for g in ordered:
        if count == table_size:
            table, count = table + 1, 0
            if table == 13:
                table = 14
        seating[g] = table
        count += 1
    return seating
