def gpa(courses):
    base = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0, "F": 0.0}
    points = 0.0
    credits_total = 0
    for grade, credits in courses:
        if credits <= 0:
            continue
        value = base[grade[0]]
        if grade.endswith("+") and grade[0] != "A":
            value += 0.3
        elif grade.endswith("-"):
            value -= 0.3
        points += value * credits
        credits_total += credits
    if credits_total == 0:
        return 0.0
    return round(points / credits_total, 2)
