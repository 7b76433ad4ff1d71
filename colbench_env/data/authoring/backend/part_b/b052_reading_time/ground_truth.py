def reading_time(word_count, image_count):
    import math
    seconds = word_count * 60 / 230 + image_count * 12
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} min read"
