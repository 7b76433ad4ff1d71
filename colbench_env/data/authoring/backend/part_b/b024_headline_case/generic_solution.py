def headline_case(text):
    return text.title()
