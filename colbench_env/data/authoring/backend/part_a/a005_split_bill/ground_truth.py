def split_bill(total, num_people, birthday_people):
    import math
    payers = num_people - birthday_people
    if payers <= 0:
        return 0.0
    share = total * 1.15 / payers
    return math.ceil(share * 2) / 2
