def league_table(results):
    table = {}
    for home, away, hg, ag in results:
        for team, gf, ga in ((home, hg, ag), (away, ag, hg)):
            row = table.setdefault(team, [0, 0, 0])
            row[1] += gf - ga
            row[2] += gf
            row[0] += 3 if gf > ga else (1 if gf == ga else 0)
    return sorted(table, key=lambda t: (-table[t][0], -table[t][1], -table[t][2], t))
