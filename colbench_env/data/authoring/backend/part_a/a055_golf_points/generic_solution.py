def golf_points(strokes, par):
    return max(0, 2 + par - strokes)
