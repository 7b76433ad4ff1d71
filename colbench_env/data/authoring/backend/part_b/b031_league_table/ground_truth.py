def league_table(results):
    table = {}
    for home, away, hg, ag in results:
        for team, gf, ga in ((home, hg, ag), (away, ag, hg)):
            row = table.setdefault(team, [0, 0])
            row[1] += gf
            if gf > ga:
                row[0] += 3
            elif gf == ga:
                row[0] += 1
            if gf >= 4:
                row[0] += 1
    return sorted(table, key=lambda t: (-table[t][0], -table[t][1], t))
