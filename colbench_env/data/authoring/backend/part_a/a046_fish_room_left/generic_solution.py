def fish_room_left(tank_liters, fish_lengths_cm):
    return max(0, tank_liters - sum(fish_lengths_cm))
