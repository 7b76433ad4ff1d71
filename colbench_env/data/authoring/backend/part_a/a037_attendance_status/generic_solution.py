def attendance_status(absences, tardies):
    total = absences + tardies * 0.5
    if total <= 2:
        return "good"
    if total <= 5:
        return "warning"
    return "poor"
