def split_tips(staff, total_tips):
    total_hours = sum(h for _, h in staff.values())
    if total_hours == 0:
        return {n: 0.0 for n in staff}
    return {n: round(total_tips * h / total_hours, 2) for n, (_, h) in staff.items()}
