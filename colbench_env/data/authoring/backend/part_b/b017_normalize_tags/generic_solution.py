def normalize_tags(tags):
    return sorted(set(t.strip().lower() for t in tags if t.strip()))
