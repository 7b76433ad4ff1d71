def assign_tables(guests, table_size):
    return {g: i // table_size + 1 for i, g in enumerate(guests)}
