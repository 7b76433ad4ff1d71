def stage_times(acts):
    if not acts:
        return []
    longest = max(range(len(acts)), key=lambda i: (acts[i][1], -i))
    order = acts[:longest] + acts[longest + 1:] + [acts[longest]]
    t = 19 * 60 + 30
    out = []
    for name, minutes in order:
        out.append((name, f"{(t // 60) % 24:02d}:{t % 60:02d}"))
        t += minutes + 15
    return out
