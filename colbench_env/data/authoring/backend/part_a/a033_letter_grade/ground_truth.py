def letter_grade(score):
    score = int(score + 0.5)
    if score >= 93:
        return "A"
    if score >= 90:
        return "A-"
    if score >= 87:
        return "B+"
    if score >= 83:
        return "B"
    if score >= 80:
        return "B-"
    if score >= 70:
        return "C"
    if score >= 60:
        return "D"
    return "F"
