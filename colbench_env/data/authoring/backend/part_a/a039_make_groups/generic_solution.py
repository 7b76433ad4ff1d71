def make_groups(names, group_size):
    return [names[i:i + group_size] for i in range(0, len(names), group_size)]
