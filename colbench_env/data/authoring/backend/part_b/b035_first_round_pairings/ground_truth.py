def first_round_pairings(ratings):
    seeds = sorted(ratings, key=lambda p: (-ratings[p], p))
    pairs = []
    if len(seeds) % 2:
        pairs.append((seeds[0], "BYE"))
        seeds = seeds[1:]
    while seeds:
        pairs.append((seeds[0], seeds[-1]))
        seeds = seeds[1:-1]
    return pairs
