def merge_grocery_lists(lists):
    return sorted({item for shopping_list in lists for item in shopping_list})
