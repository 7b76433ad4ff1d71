def trivia_score(answers):
    score = 0
    streak = 0
    for correct, seconds in answers:
        if seconds > 30:
            streak = 0
            continue
        if correct:
            score += 10
            if seconds <= 5:
                score += 5
            streak += 1
            if streak % 3 == 0:
                score += 10
        else:
            score -= 3
            streak = 0
    return score
