def word_points(word):
    values = {}
    for letters, points in (("aeioulnstr", 1), ("dg", 2), ("bcmp", 3), ("fhvwy", 4), ("k", 5),
                            ("jx", 8), ("qz", 10)):
        for letter in letters:
            values[letter] = points
    return sum(values.get(ch, 0) for ch in word.lower())
