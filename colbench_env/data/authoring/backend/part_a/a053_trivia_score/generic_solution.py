def trivia_score(answers):
    return sum(10 for correct, _ in answers if correct)
