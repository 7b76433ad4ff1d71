def merge_grocery_lists(lists):
    counts = {}
    for shopping_list in lists:
        seen = {item.strip().lower() for item in shopping_list}
        for item in seen:
            if item:
                counts[item] = counts.get(item, 0) + 1
    return sorted(counts, key=lambda item: (-counts[item], item))
