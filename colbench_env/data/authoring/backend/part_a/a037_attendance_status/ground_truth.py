def attendance_status(absences, tardies):
    total = absences + tardies // 3
    if total == 0:
        return "perfect"
    if total <= 3:
        return "good"
    if total <= 6:
        return "warning"
    return "failing"
