def split_bill(total, num_people, birthday_people):
    return round(total / num_people, 2)
