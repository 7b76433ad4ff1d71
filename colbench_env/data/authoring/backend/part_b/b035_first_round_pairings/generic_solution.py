def first_round_pairings(ratings):
    seeds = sorted(ratings, key=lambda p: -ratings[p])
    return [(seeds[i], seeds[i + 1]) for i in range(0, len(seeds) - 1, 2)]
