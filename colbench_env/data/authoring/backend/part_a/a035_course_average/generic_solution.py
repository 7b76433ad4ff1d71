def course_average(homework, quizzes, exams):
    scores = homework + quizzes + exams
    if not scores:
        return 0.0
    return round(sum(scores) / len(scores), 2)
