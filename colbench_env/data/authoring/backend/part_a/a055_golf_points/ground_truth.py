def golf_points(strokes, par):
    if strokes == 1:
        return 10
    diff = strokes - par
    if diff <= -2:
        return 6
    if diff == -1:
        return 4
    if diff == 0:
        return 2
    if diff == 1:
        return 1
    return 0
