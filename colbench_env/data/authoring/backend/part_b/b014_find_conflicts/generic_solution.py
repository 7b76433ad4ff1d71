def find_conflicts(events):
    pairs = []
    for i in range(len(events)):
        for j in range(i + 1, len(events)):
            a, b = events[i], events[j]
            if a[1] < b[2] and b[1] < a[2]:
                pairs.append((a[0], b[0]))
    return pairs
