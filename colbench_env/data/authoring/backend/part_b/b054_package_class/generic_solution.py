def package_class(length, width, height, weight):
    if weight <= 1:
        return "small"
    if weight <= 5:
        return "medium"
    if weight <= 20:
        return "large"
    return "freight"
