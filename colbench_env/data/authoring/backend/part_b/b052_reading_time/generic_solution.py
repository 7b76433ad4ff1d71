def reading_time(word_count, image_count):
    minutes = max(1, round(word_count / 200))
    return f"{minutes} min read"
