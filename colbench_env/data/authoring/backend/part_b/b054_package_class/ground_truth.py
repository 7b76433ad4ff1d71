def package_class(length, width, height, weight):
    billable = max(weight, length * width * height / 5000)
    longest = max(length, width, height)
    if longest <= 30 and billable <= 2:
        return "small"
    if longest <= 60 and billable <= 10:
        return "medium"
    if longest <= 120 and billable <= 30:
        return "large"
    return "freight"
