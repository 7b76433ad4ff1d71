def fish_room_left(tank_liters, fish_lengths_cm):
    capacity = tank_liters * 0.8 / 2
    left = capacity - sum(fish_lengths_cm)
    return max(0, int(left))
