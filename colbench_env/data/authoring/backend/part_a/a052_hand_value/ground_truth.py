def hand_value(cards):
    total = 0
    aces = 0
    for card in cards:
        if card == "A":
            aces += 1
            total += 11
        elif card in ("K", "Q", "J"):
            total += 10
        else:
            total += int(card)
    while total > 21 and aces:
        total -= 10
        aces -= 1
    if total > 21:
        return 0
    if len(cards) >= 5:
        return 21
    return total
