def stage_times(acts):
    t = 20 * 60
    out = []
    for name, minutes in acts:
        out.append((name, f"{(t // 60) % 24:02d}:{t % 60:02d}"))
        t += minutes
    return out
