def word_points(word):
    score = 0
    letters = 0
    for ch in word.lower():
        if not ch.isalpha():
            continue
        letters += 1
        if ch in "aeiou":
            score += 1
        elif ch in "qxzj":
            score += 8
        else:
            score += 2
    if letters >= 7:
        score += 20
    return score
