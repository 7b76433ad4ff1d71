def make_groups(names, group_size):
    ordered = sorted(names)
    groups = [ordered[i:i + group_size] for i in range(0, len(ordered), group_size)]
    if len(groups) > 1 and len(groups[-1]) == 1:
        groups[-2].extend(groups.pop())
    return groups
