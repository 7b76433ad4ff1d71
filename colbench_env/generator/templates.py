"""The 14 templates of the task generator, and the named families of templates
(see :mod:`colbench_env.generator`)."""
from __future__ import annotations

import json

from .machinery import (Fact, Template, _amount, _factor, _lit, _num, _pick, _request, _round_phrase, _rounded,
                        _rounding_fact)

__all__ = ["TEMPLATES", "FAMILIES"]

# tip ---------------------------------------------------------------------------------------------

def _tip_body(p):
    r, R = p["rate"], (lambda e: _rounded(e, p["rounding"]))
    lines = []
    if p["zero_if_nonpositive"]:
        lines += ["if bill <= 0:", "    return 0"]
    if p["min_tip"]:
        lines += [f"tip = max(bill * {_lit(r / 100)}, {_lit(p['min_tip'])})", f"return {R('bill + tip')}"]
    else:
        lines += [f"return {R(f'bill * {_factor(r)}')}"]
    return lines


_tip_describe = _request(
    lambda p, active: ("I want a function that adds my usual tip to a restaurant bill and returns the total, "
                       f"{_round_phrase(active)}."),
    min_tip="Small bills get special treatment for the tip.",
    zero_if_nonpositive="It should also cope with a bill that is zero or negative.")


def _tip_candidates(rng, p, active):
    xs = [_amount(rng, 8, 180) for _ in range(24)]
    if "min_tip" in active:
        limit = int(p["min_tip"] * 100 / p["rate"])
        xs += [_amount(rng, 1, max(1, limit - 1)) for _ in range(8)]
    if "zero_if_nonpositive" in active:
        xs += [0, -_amount(rng, 1, 40), -_amount(rng, 1, 40)]
    return [(x,) for x in xs]


TIP = Template(
    "tip", "add_tip", "bill",
    (Fact("rate", 20, _pick(10, 12, 15, 18, 22, 25), lambda v, p: f"I always tip {v} percent of the bill.",
          "What tip percentage do you usually leave?"),
     _rounding_fact("total"),
     Fact("min_tip", 0, _pick(2, 3, 5), lambda v, p: f"My tip is never less than {v} dollars, even on a small bill.",
          "Is there a minimum tip for small bills?"),
     Fact("zero_if_nonpositive", False, _pick(True),
          lambda v, p: "If the bill is zero or negative, the function should return 0.",
          "What should happen when the bill is zero or negative?")),
    _tip_describe, _tip_body, _tip_candidates)


# discount tiers ---------------------------------------------------------------------------------

def _discount_body(p):
    d, R = p["percent"], (lambda e: _rounded(e, p["rounding"]))
    lines = []
    if p["big_tier"]:
        lines += [f"if price >= {p['big_tier']}:", f"    return {R(f'price * {_factor(-2 * d)}')}"]
    if p["min_price"]:
        lines += [f"if price >= {p['min_price']}:", f"    return {R(f'price * {_factor(-d)}')}",
                  f"return {R('price')}"]
    else:
        lines += [f"return {R(f'price * {_factor(-d)}')}"]
    return lines


_discount_describe = _request(
    lambda p, active: ("I want a function that applies my standard discount to a price and returns the new price, "
                       f"{_round_phrase(active)}."),
    min_price="Not every price gets the discount.",
    big_tier="Big purchases get a better deal.")


def _discount_candidates(rng, p, active):
    xs = [_amount(rng, 5, 450) for _ in range(24)]
    if "min_price" in active:
        t = p["min_price"]
        xs += [t, t, _amount(rng, 2, t - 1), _amount(rng, 2, t - 1), _amount(rng, 2, t - 1)]
    if "big_tier" in active:
        b = p["big_tier"]
        xs += [b, _amount(rng, b, b + 300), _amount(rng, b, b + 300), _amount(rng, b - 60, b - 1)]
    return [(x,) for x in xs]


DISCOUNT = Template(
    "discount_tiers", "discounted_price", "price",
    (Fact("percent", 10, _pick(5, 15, 20, 25, 30), lambda v, p: f"My standard discount is {v} percent off the price.",
          "What discount percentage should I apply?"),
     Fact("min_price", 0, _pick(50, 75, 100),
          lambda v, p: f"The discount only applies when the price is at least {v} dollars; cheaper prices get no discount.",
          "Is there a minimum price for the discount to apply?"),
     _rounding_fact("price"),
     Fact("big_tier", 0, _pick(200, 300, 500),
          lambda v, p: f"Big purchases of {v} dollars or more get double the discount, {2 * p['percent']} percent off.",
          "Do big purchases get a bigger discount?")),
    _discount_describe, _discount_body, _discount_candidates)


# shipping threshold -----------------------------------------------------------------------------

def _shipping_body(p):
    op = ">" if p["strict"] else ">="
    lines = []
    if p["empty_free"]:
        lines += ["if order_total <= 0:", "    return 0"]
    lines += [f"return 0 if order_total {op} {p['threshold']} else {_lit(p['fee'])}"]
    return lines


def _shipping_opening(p, active):
    fee = "my usual flat shipping fee" if "fee" in active else f"a flat {_num(p['fee'])} dollar shipping fee"
    free = ("big enough orders ship free" if "strict" in active
            else "orders at or above my free shipping threshold ship free")
    return f"I want a function that works out the shipping cost of an order from its total: I charge {fee}, but {free}."


_shipping_describe = _request(
    _shipping_opening,
    empty_free="Empty orders need handling too.")


def _shipping_candidates(rng, p, active):
    t = p["threshold"]
    lo, hi = min(t, 50), max(t, 50)  # totals between my threshold and the usual 50 tell them apart
    xs = [_amount(rng, 5, 2 * t + 40) for _ in range(18)] + [_amount(rng, 1, t - 1) for _ in range(4)]
    xs += [_amount(rng, lo, hi - 1) for _ in range(3)]
    if "strict" in active:
        xs += [t, t]
    if "empty_free" in active:
        xs += [0, -_amount(rng, 1, 20)]
    return [(x,) for x in xs]


SHIPPING = Template(
    "shipping_threshold", "shipping_cost", "order_total",
    (Fact("threshold", 50, _pick(25, 35, 75, 100), lambda v, p: f"My free shipping threshold for the order total is {v} dollars.",
          "What order total do you need for free shipping?"),
     Fact("fee", 5, _pick(3.99, 4.5, 6, 7.99), lambda v, p: f"My flat shipping fee is {_num(v)} dollars.",
          "How much is the shipping fee?"),
     Fact("strict", False, _pick(True),
          lambda v, p: ("An order exactly at the free shipping threshold still pays the shipping fee; "
                        "the total has to be above the threshold to ship free."),
          "Does an order exactly at the threshold ship free?"),
     Fact("empty_free", False, _pick(True),
          lambda v, p: "An empty order, with a total of zero or less, costs nothing to ship.",
          "What is the shipping cost for an empty order with a zero total?")),
    _shipping_describe, _shipping_body, _shipping_candidates)


# loyalty points ---------------------------------------------------------------------------------

def _loyalty_body(p):
    r = p["rate"]
    lines = []
    if p["refund_zero"]:
        lines += ["if amount < 0:", "    return 0"]
    if not (p["double_at"] or p["cap"]):
        return lines + [f"return int(amount) * {r}"]
    lines += [f"points = int(amount) * {r}"]
    if p["double_at"]:
        lines += [f"if amount >= {p['double_at']}:", "    points = points * 2"]
    lines += [f"return min(points, {p['cap']})" if p["cap"] else "return points"]
    return lines


_loyalty_describe = _request(
    "I want a function that works out how many loyalty points a customer earns for a purchase amount in "
    "dollars. Points are earned for each whole dollar spent; leftover cents earn nothing.",
    double_at="Bigger purchases earn extra.",
    cap="There is a limit on points per purchase.",
    refund_zero="Refunds come in as negative amounts.")


def _loyalty_candidates(rng, p, active):
    xs = [_amount(rng, 1, 300) for _ in range(22)]
    if "double_at" in active:
        b = p["double_at"]
        xs += [b, _amount(rng, b, b + 150), _amount(rng, 1, b - 1), round(b - 0.5, 2)]
    if "cap" in active:
        over = p["cap"] // p["rate"]
        xs += [_amount(rng, over + 1, over + 300) for _ in range(4)]
    if "refund_zero" in active:
        xs += [-_amount(rng, 1, 80), -_amount(rng, 1, 80)]
    return [(x,) for x in xs]


LOYALTY = Template(
    "loyalty_points", "loyalty_points", "amount",
    (Fact("rate", 1, _pick(2, 3, 5, 10), lambda v, p: f"Customers earn {v} points for every whole dollar spent.",
          "How many points per dollar spent?"),
     Fact("double_at", 0, _pick(50, 100, 200), lambda v, p: f"Purchases of {v} dollars or more earn double points.",
          "Do bigger purchases earn bonus points?"),
     Fact("cap", 0, lambda rng, drawn: drawn["rate"] * rng.choice(
              [m for m in (100, 150, 250, 450, 600) if m > 2 * drawn["double_at"] + 40]),
          lambda v, p: f"A single purchase earns at most {v} points.",
          "Is there a maximum number of points per purchase?"),
     Fact("refund_zero", False, _pick(True), lambda v, p: "A refund, which is a negative amount, earns 0 points.",
          "How many points does a refund with a negative amount earn?")),
    _loyalty_describe, _loyalty_body, _loyalty_candidates)


# grade letter cutoffs ---------------------------------------------------------------------------

def _grade_body(p):
    lines = []
    if p["invalid"]:
        lines += ["if score < 0 or score > 100:", "    return \"invalid\""]
    if p["a_plus"]:
        lines += [f"if score >= {p['a_plus']}:", "    return \"A+\""]
    for letter, cut in (("A", p["a_cut"]), ("B", 80), ("C", 70), ("D", p["d_cut"])):
        lines += [f"if score >= {cut}:", f"    return \"{letter}\""]
    return lines + ["return \"F\""]


def _grade_opening(p, active):
    bands = "B starts at 80 and C at 70" + ("" if "d_cut" in active else ", D at 60")
    own = "an A and a D" if "d_cut" in active else "an A"
    return ("I want a function that turns a score out of 100 into a letter grade (A, B, C, D or F). "
            f"As usual {bands}, and anything below the D cutoff is an F, but I use my own cutoff for {own}.")


_grade_describe = _request(
    _grade_opening,
    a_plus="Truly outstanding scores get something special.",
    invalid="Scores outside 0 to 100 should be handled.")


def _grade_candidates(rng, p, active):
    xs = [rng.randint(0, 100) for _ in range(18)]
    xs += [p["a_cut"], p["a_cut"] - 1, 80, 79, 70, 69, p["d_cut"], p["d_cut"] - 1]
    xs += [rng.randint(min(p["a_cut"], 90), max(p["a_cut"], 90)) for _ in range(3)]
    if "a_plus" in active:
        xs += [p["a_plus"], p["a_plus"] - 1, 100]
    if "invalid" in active:
        xs += [-rng.randint(1, 20), 100 + rng.randint(1, 20)]
    return [(x,) for x in xs]


GRADE = Template(
    "grade_letter", "letter_grade", "score",
    (Fact("a_cut", 90, _pick(85, 88, 92, 93, 95), lambda v, p: f"A score of {v} or more gets an A.",
          "What score do you need for an A?"),
     Fact("d_cut", 60, _pick(50, 55, 65),
          lambda v, p: f"The lowest passing score is {v}: a score of {v} or more gets a D, and below that is an F.",
          "What is the lowest passing score for a D?"),
     Fact("a_plus", 0, _pick(97, 98, 99), lambda v, p: f"An outstanding score of {v} or more gets the top grade, an A+ instead of an A.",
          "Is there an A+ grade for outstanding scores?"),
     Fact("invalid", False, _pick(True),
          lambda v, p: "A score below 0 or above 100 is invalid, and the function should return the string 'invalid'.",
          "What should the function return for an invalid score below 0 or above 100?")),
    _grade_describe, _grade_body, _grade_candidates)


# temperature conversion with rounding -----------------------------------------------------------

def _temp_body(p):
    c = f"(celsius - {_lit(p['offset'])})" if p["offset"] else "celsius"
    raw = f"{c} * 9 / 5 + 32"
    val = raw if p["digits"] is None else (f"round({raw})" if p["digits"] == 0 else f"round({raw}, {p['digits']})")
    lines = []
    if p["absolute_zero"]:
        lines += ["if celsius < -273.15:", "    return \"invalid\""]
    return lines + [f"return min({val}, {p['cap']})" if p["cap"] else f"return {val}"]


_temp_describe = _request(
    "I want a function that converts a temperature reading from Celsius to Fahrenheit, rounded the way I like it.",
    offset="My thermometer is not quite accurate, so take that into account.",
    cap="Very hot results should be limited.",
    absolute_zero="Impossible readings should be caught.")


def _temp_reading(rng):
    return round(rng.randint(-30, 45) + rng.choice((0, 0.5, 0.2, 0.7, 0.3, 0.9, 0.4)), 1)


def _temp_candidates(rng, p, active):
    xs = [_temp_reading(rng) for _ in range(24)]
    if "cap" in active:
        hot = (p["cap"] - 32) * 5 / 9 + p["offset"]
        xs += [round(hot + rng.randint(1, 40) + rng.choice((0.2, 0.5, 0.7)), 1) for _ in range(4)]
    if "absolute_zero" in active:
        xs += [-300, -280.5, -274.2]
    return [(x,) for x in xs]


TEMPERATURE = Template(
    "temperature_conversion", "to_fahrenheit", "celsius",
    (Fact("digits", None, _pick(0, 1),
          lambda v, p: ("I want the Fahrenheit result rounded to the nearest whole degree." if v == 0 else
                        "I want the Fahrenheit result rounded to one decimal place."),
          "How should the Fahrenheit result be rounded?"),
     Fact("offset", 0, _pick(0.5, 1, 2),
          lambda v, p: (f"My thermometer reads {_num(v)} degree{'' if v == 1 else 's'} Celsius too high, so subtract {_num(v)} "
                        "from the reading before converting."),
          "How is your thermometer reading off?"),
     Fact("cap", None, _pick(100, 110, 120),
          lambda v, p: f"Any result above {v} degrees Fahrenheit should be capped at {v}.",
          "What is the highest Fahrenheit result allowed?"),
     Fact("absolute_zero", False, _pick(True),
          lambda v, p: ("A reading below absolute zero, -273.15 Celsius, is impossible and should return the "
                        "string 'invalid'."),
          "What should happen with an impossible reading below absolute zero?")),
    _temp_describe, _temp_body, _temp_candidates)


# list sorting with personal order ---------------------------------------------------------------

def _sort_body(p):
    lines = []
    if p["drop_zero"]:
        lines += ["numbers = [n for n in numbers if n != 0]"]
    src = "set(numbers)" if p["dedupe"] else "numbers"
    key = {"ascending": "", "descending": ", reverse=True", "magnitude": ", key=abs"}[p["order"]]
    expr = f"sorted({src}{key})" + (f"[:{p['top_k']}]" if p["top_k"] else "")
    return lines + [f"return {expr}"]


_sort_describe = _request(
    "I want a function that sorts a list of whole numbers into my preferred order and returns the sorted list.",
    dedupe="Repeated numbers bother me.",
    top_k="I usually don't need the whole list back.",
    drop_zero="Some numbers don't belong in the result at all.")


def _sort_candidates(rng, p, active):
    out = []
    for _ in range(26):
        n = rng.randint(4, 8)
        xs = [v if rng.random() < 0.65 else -v for v in rng.sample(range(1, 40), n)]
        if "dedupe" in active and rng.random() < 0.5:
            xs.append(rng.choice(xs))
        if "drop_zero" in active and rng.random() < 0.5:
            xs.append(0)
        rng.shuffle(xs)
        out.append((xs,))
    if "drop_zero" in active:  # a zero among negatives shows up whatever the order
        out += [([0] + [-v for v in rng.sample(range(1, 40), rng.randint(3, 6))],) for _ in range(3)]
    return out


SORTING = Template(
    "sort_numbers", "sort_numbers", "numbers",
    (Fact("order", "ascending", _pick("descending", "magnitude"),
          lambda v, p: ("I want the numbers sorted from largest to smallest, in descending order." if v == "descending"
                        else "I want the numbers sorted by size ignoring the minus sign, smallest absolute value first."),
          "In what order should the numbers be sorted?"),
     Fact("dedupe", False, _pick(True), lambda v, p: "Duplicate numbers should appear only once in the result.",
          "What should happen with duplicate numbers?"),
     Fact("top_k", 0, _pick(3, 4, 5),
          lambda v, p: f"Only the first {v} numbers of the sorted result should be returned.",
          "How many numbers should the result return?"),
     Fact("drop_zero", False, _pick(True), lambda v, p: "Zeros should be left out of the result.",
          "Which numbers should be left out of the result?")),
    _sort_describe, _sort_body, _sort_candidates)


# fruit in a personal order ----------------------------------------------------------------------

_FRUITS = ("apple", "banana", "cherry", "grape", "kiwi", "mango", "orange", "pear", "plum")


def _draw_fruit_order(rng, drawn):
    while True:
        order = rng.sample(_FRUITS, 4)
        if order != sorted(order):
            return order


def _fruit_body(p):
    lines = []
    if p["lowercase"]:
        lines += ["fruits = [f.lower() for f in fruits]"]
    src = "set(fruits)" if p["dedupe"] else "fruits"
    if p["order"] is None:
        return lines + [f"return sorted({src})"]
    order = json.dumps(p["order"])
    if p["unknown_last"]:
        return lines + [f"order = {order}",
                        f"return sorted({src}, key=lambda f: (order.index(f), \"\") if f in order else (len(order), f))"]
    return lines + [f"return sorted({src}, key={order}.index)"]


def _fruit_opening(p, active):
    names = ", ".join(sorted(p["order"]))
    return f"I want a function that puts a list of fruit names ({names}) in my favourite order and returns the sorted list."


_fruit_describe = _request(
    _fruit_opening,
    unknown_last="Sometimes other fruits show up in the list.",
    dedupe="Repeats bother me.",
    lowercase="People don't always type the names in lower case.")


def _fruit_candidates(rng, p, active):
    known = list(p["order"])
    others = [f for f in _FRUITS if f not in known]
    out = []
    for _ in range(26):
        xs = rng.sample(known, rng.randint(2, 4))
        if "dedupe" in active and rng.random() < 0.6:
            xs.append(rng.choice(xs))
        if "unknown_last" in active and rng.random() < 0.6:
            xs += rng.sample(others, rng.randint(1, 2))
        if "lowercase" in active:
            xs = [x.capitalize() if rng.random() < 0.4 else (x.upper() if rng.random() < 0.15 else x) for x in xs]
        rng.shuffle(xs)
        out.append((xs,))
    return out


FRUIT = Template(
    "fruit_order", "arrange_fruit", "fruits",
    (Fact("order", None, _draw_fruit_order,
          lambda v, p: f"My favourite order is {v[0]}, then {v[1]}, then {v[2]}, then {v[3]}.",
          "What is your favourite order for the fruits?"),
     Fact("unknown_last", False, _pick(True),
          lambda v, p: "Fruits that are not in my favourite list go at the end, in alphabetical order.",
          "Where should fruits that are not in your list go?"),
     Fact("dedupe", False, _pick(True), lambda v, p: "Each fruit should appear only once in the result.",
          "What should happen with duplicate fruits?"),
     Fact("lowercase", False, _pick(True),
          lambda v, p: "Fruit names should be turned to lower case first, so 'Apple' counts as 'apple'.",
          "Should upper case fruit names be turned to lower case?")),
    _fruit_describe, _fruit_body, _fruit_candidates)


# string formatting of names ---------------------------------------------------------------------

_FIRST = ("jane", "john", "maria", "ahmed", "li", "sofia", "omar", "emma", "lucas", "nora", "ivan", "grace")
_LAST = ("doe", "smith", "garcia", "khan", "chen", "rossi", "novak", "kim", "silva", "berg", "okafor", "larsen",
         "fitzgerald", "johansson", "castellanos")

_NAME_STYLES = {
    "first_last": 'f"{first} {last}"',
    "last_comma_first": 'f"{last}, {first}"',
    "initial_last": 'f"{first[0]}. {last}"',
    "last_upper": 'f"{last.upper()}, {first}"',
}
_NAME_SENTENCES = {
    "last_comma_first": "I write names as the last name, a comma and a space, then the first name, like 'Doe, Jane'.",
    "initial_last": "I write names as the first initial with a period after it, then a space and the last name.",
    "last_upper": "I write names as the last name in capital letters, a comma and a space, then the first name, like 'DOE, Jane'.",
}


def _name_body(p):
    lines = []
    if p["strip"]:
        lines += ["first = first.strip()", "last = last.strip()"]
    if p["capitalize"]:
        lines += ["first = first.capitalize()", "last = last.capitalize()"]
    if p["empty_first"]:
        lines += ["if not first:", "    return last"]
    return lines + [f"return {_NAME_STYLES[p['style']]}"]


_name_describe = _request(
    "I want a function that formats a person's first and last name into one string, written the way I always write names.",
    capitalize="People don't always type names with proper capital letters.",
    strip="Names sometimes come with extra spaces around them.",
    empty_first="Sometimes the first name is missing.")


def _messy_case(rng, name):
    return rng.choice((name, name.upper(), name.capitalize(), name[0] + name[1:].upper()))


def _name_candidates(rng, p, active):
    out = []
    for _ in range(26):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        if "capitalize" in active:
            first, last = _messy_case(rng, first), _messy_case(rng, last)
        else:
            first, last = first.capitalize(), last.capitalize()
        if "strip" in active:
            first = " " * rng.randint(0, 2) + first + " " * rng.randint(0, 2)
            last = " " * rng.randint(0, 2) + last + " " * rng.randint(1, 2)
        out.append((first, last))
    if "empty_first" in active:
        out += [("" if "strip" not in active else rng.choice(("", " ", "  ")), rng.choice(_LAST).capitalize())
                for _ in range(3)]
    return out


NAMES = Template(
    "name_format", "format_name", "first, last",
    (Fact("style", "first_last", _pick("last_comma_first", "initial_last", "last_upper"),
          lambda v, p: _NAME_SENTENCES[v], "How do you like names to be written?"),
     Fact("capitalize", False, _pick(True),
          lambda v, p: "Each name should be capitalized: first letter upper case and the rest lower case.",
          "Should the names be capitalized?"),
     Fact("strip", False, _pick(True), lambda v, p: "Extra spaces around each name should be removed.",
          "What about extra spaces around the names?"),
     Fact("empty_first", False, _pick(True), lambda v, p: "If the first name is empty, return just the last name.",
          "What if the first name is empty?")),
    _name_describe, _name_body, _name_candidates)


# late fee ---------------------------------------------------------------------------------------

def _late_body(p):
    r, g = _lit(p["per_day"]), p["grace"]
    lines = []
    if g:
        lines += [f"if days_late <= {g}:", "    return 0"]
        fee = f"(days_late - {g}) * {r}"
    else:
        fee = f"days_late * {r}"
    if not (p["cap"] or p["processing"]):
        return lines + [f"return {fee}"]
    lines += [f"fee = {fee}"]
    if p["cap"]:
        lines += [f"fee = min(fee, {p['cap']})"]
    if p["processing"]:
        return lines + ["if fee <= 0:", "    return 0", f"return fee + {p['processing']}"]
    return lines + ["return fee"]


_late_describe = _request(
    "I want a function that works out the late fee for a library book, given how many days late it comes back.",
    grace="I'm a bit lenient at first.",
    cap="The fee can't grow forever.",
    processing="There is also an extra charge involved.")


def _late_candidates(rng, p, active):
    xs = [rng.randint(0, 30) for _ in range(20)]
    if "grace" in active:
        xs += list(range(0, p["grace"] + 2))
    if "cap" in active:
        over = int(p["cap"] / p["per_day"]) + p["grace"]
        xs += [rng.randint(over + 1, over + 30) for _ in range(4)]
    return [(x,) for x in xs]


LATE_FEE = Template(
    "late_fee", "late_fee", "days_late",
    (Fact("per_day", 1, _pick(0.25, 0.5, 0.75, 1.5, 2, 2.5),
          lambda v, p: f"The late fee is {_num(v)} dollars for each day late.", "How much is the late fee per day?"),
     Fact("grace", 0, _pick(1, 2, 3),
          lambda v, p: (f"The first {v} days late are free; only the days after that are charged." if v > 1 else
                        "The first day late is free; only the days after that are charged."),
          "Is there a grace period of free days?"),
     Fact("cap", 0, lambda rng, drawn: rng.choice([c for c in (5, 10, 15, 20) if c < drawn["per_day"] * 25]),
          lambda v, p: f"The late fee is capped at a maximum of {v} dollars.", "Is there a maximum late fee?"),
     Fact("processing", 0, _pick(1, 2, 5),
          lambda v, p: f"I add a {v} dollar processing charge on top of any late fee, but no fee means no charge.",
          "Is there any extra processing charge?")),
    _late_describe, _late_body, _late_candidates)


# unit price with bulk rule ----------------------------------------------------------------------

def _bulk_body(p):
    u = _lit(p["unit_price"])
    lines = []
    if p["zero_empty"]:
        lines += ["if quantity <= 0:", "    return 0"]
    cost = f"quantity * {u}"
    if p["bulk_at"]:
        lines += [f"cost = quantity * {u}", f"if quantity >= {p['bulk_at']}:", "    cost = cost * 0.9"]
        cost = "cost"
    total = f"{cost} + {_lit(p['handling'])}" if p["handling"] else cost
    return lines + [f"return round({total}, 2)"]


_bulk_describe = _request(
    "I want a function that gives the total cost of an order for some quantity of the item I sell, at my "
    "unit price, rounded to 2 decimal places.",
    bulk_at="Big orders get a deal.",
    handling="There is an extra charge on every order.",
    zero_empty="Empty or negative quantities should be handled.")


def _bulk_candidates(rng, p, active):
    xs = [rng.randint(1, 80) for _ in range(22)]
    if "bulk_at" in active:
        n = p["bulk_at"]
        xs += [n, n - 1, rng.randint(n, n + 60), rng.randint(1, n - 1)]
    if "zero_empty" in active:
        xs += [0, -rng.randint(1, 10)]
    return [(x,) for x in xs]


BULK = Template(
    "bulk_unit_price", "order_cost", "quantity",
    (Fact("unit_price", 10, _pick(2.5, 3.75, 4.25, 6.5, 12.5),
          lambda v, p: f"My unit price is {_num(v)} dollars per unit.", "What is the unit price?"),
     Fact("bulk_at", 0, _pick(10, 20, 50),
          lambda v, p: f"Orders of {v} units or more get a 10 percent bulk discount.",
          "How many units do you need for a bulk discount?"),
     Fact("handling", 0, _pick(2.5, 4, 5),
          lambda v, p: f"Every order has a flat {_num(v)} dollar handling fee, added after any discount.",
          "Is there a handling fee on each order?"),
     Fact("zero_empty", False, _pick(True),
          lambda v, p: "An order of zero or fewer units costs nothing, not even the handling fee.",
          "What does an order of zero units cost?")),
    _bulk_describe, _bulk_body, _bulk_candidates)


# workout calories -------------------------------------------------------------------------------

def _calories_body(p):
    r, t, m = p["per_minute"], p["slowdown_after"], p["min_minutes"]
    lines = []
    if m:
        lines += [f"if minutes < {m}:", "    return 0"]
    if not (t or p["round_down_10"]):
        return lines + [f"return minutes * {r}"]
    if t:
        lines += [f"if minutes > {t}:", f"    calories = {t} * {r} + (minutes - {t}) * {r} / 2",
                  "else:", f"    calories = minutes * {r}"]
    else:
        lines += [f"calories = minutes * {r}"]
    return lines + ["return calories // 10 * 10" if p["round_down_10"] else "return calories"]


_calories_describe = _request(
    "I want a function that estimates how many calories I burn in a workout, given its length in whole minutes.",
    slowdown_after="I get tired in long workouts.",
    min_minutes="Very short workouts don't really count.",
    round_down_10="I like round numbers.")


def _calories_candidates(rng, p, active):
    xs = [rng.randint(1, 90) for _ in range(22)]
    if "slowdown_after" in active:
        t = p["slowdown_after"]
        xs += [t, t + 1, rng.randint(t + 2, t + 60), rng.randint(t + 2, t + 60)]
    if "min_minutes" in active:
        m = p["min_minutes"]
        xs += [m - 1, m, rng.randint(1, m - 1)]
    return [(x,) for x in xs]


CALORIES = Template(
    "workout_calories", "calories_burned", "minutes",
    (Fact("per_minute", 10, _pick(6, 7, 8, 9, 11, 12),
          lambda v, p: f"I burn {v} calories per minute of exercise.", "How many calories do you burn per minute?"),
     Fact("slowdown_after", 0, _pick(20, 30, 45),
          lambda v, p: f"After the first {v} minutes I slow down and burn only half as many calories per minute.",
          "Do you burn fewer calories per minute in long workouts?"),
     Fact("min_minutes", 0, _pick(5, 10, 15),
          lambda v, p: f"Workouts shorter than {v} minutes don't count and burn 0 calories.",
          "What is the minimum number of minutes for a workout to count?"),
     Fact("round_down_10", False, _pick(True), lambda v, p: "I round the calories down to the nearest 10.",
          "How should the calories be rounded?")),
    _calories_describe, _calories_body, _calories_candidates)


# weekly pay with overtime -----------------------------------------------------------------------

def _pay_body(p):
    r, h = _lit(p["rate"]), p["overtime_after"]
    if not (h or p["union_fee"] or p["round_down"]):
        return [f"return hours * {r}"]
    if h:
        lines = [f"if hours > {h}:", f"    pay = {h} * {r} + (hours - {h}) * {r} * 1.5",
                 "else:", f"    pay = hours * {r}"]
    else:
        lines = [f"pay = hours * {r}"]
    total = f"pay - {_lit(p['union_fee'])}" if p["union_fee"] else "pay"
    return lines + [f"return math.floor({total})" if p["round_down"] else f"return {total}"]


_pay_describe = _request(
    "I want a function that works out my weekly pay from the number of hours I worked (hours can include quarter hours).",
    overtime_after="Long weeks are paid differently.",
    union_fee="Something gets taken off every paycheck.",
    round_down="I keep the pay figure simple.")


def _pay_candidates(rng, p, active):
    q = (0, 0.25, 0.5, 0.75)
    xs = [rng.randint(5, 50) + rng.choice(q) for _ in range(24)]
    if "overtime_after" in active:
        h = p["overtime_after"]
        xs += [h, h + 0.5, rng.randint(h + 1, h + 15) + rng.choice(q), rng.randint(h + 1, h + 15) + rng.choice(q)]
    return [(x,) for x in xs]


PAY = Template(
    "weekly_pay", "weekly_pay", "hours",
    (Fact("rate", 15, _pick(12.5, 18, 19.5, 22.5, 25), lambda v, p: f"My hourly rate is {_num(v)} dollars.",
          "What is your hourly rate?"),
     Fact("overtime_after", 0, _pick(35, 40, 45),
          lambda v, p: f"Hours over {v} in a week are overtime, paid at one and a half times my hourly rate.",
          "How is overtime paid, and after how many hours?"),
     Fact("union_fee", 0, _pick(5, 10, 12.5),
          lambda v, p: f"A {_num(v)} dollar union fee is taken off every paycheck.",
          "Is any fee taken off the paycheck?"),
     Fact("round_down", False, _pick(True), lambda v, p: "The pay is rounded down to a whole dollar, dropping the cents.",
          "How should the pay be rounded?")),
    _pay_describe, _pay_body, _pay_candidates)


# usernames --------------------------------------------------------------------------------------

_ODD_FIRST = ("Mary-Kate", "Jean-Luc", "Ann-Marie", "D'Arcy")
_ODD_LAST = ("O'Brien", "Smith-Jones", "D'Angelo", "Lee-Park")
_SEP_WORDS = {".": "a dot", "-": "a hyphen", "": "nothing in between"}


def _user_body(p):
    sep = json.dumps(p["sep"])
    if not (p["initial"] or p["max_len"] or p["letters_only"]):
        return [f"return full_name.lower().replace(\" \", {sep})"]
    lines = ["first, last = full_name.lower().split(\" \")"]
    if p["letters_only"]:
        lines += ["first = \"\".join(c for c in first if c.isalpha())",
                  "last = \"\".join(c for c in last if c.isalpha())"]
    if p["initial"]:
        lines += ["first = first[0]"]
    expr = f"first + {sep} + last"
    return lines + [f"return ({expr})[:{p['max_len']}]" if p["max_len"] else f"return {expr}"]


_user_describe = _request(
    "I want a function that makes a username from a person's full name (first name, one space, last name): "
    "all lower case, with the names joined my usual way.",
    initial="Not every part of the name needs to be spelled out.",
    max_len="There is a length limit too.",
    letters_only="Some names have odd characters in them.")


def _user_candidates(rng, p, active):
    out = []
    for _ in range(26):
        first, last = rng.choice(_FIRST).capitalize(), rng.choice(_LAST).capitalize()
        if "letters_only" in active and rng.random() < 0.5:
            if rng.random() < 0.5:
                first = rng.choice(_ODD_FIRST)
            else:
                last = rng.choice(_ODD_LAST)
        out.append((f"{first} {last}",))
    return out


USERNAME = Template(
    "username", "make_username", "full_name",
    (Fact("sep", "_", _pick(".", "-", ""),
          lambda v, p: (f"Usernames join the first and last name with {_SEP_WORDS[v]}, like 'jane{v}doe'."),
          "How should the first and last name be joined in the username?"),
     Fact("initial", False, _pick(True),
          lambda v, p: f"Only the first letter of the first name is used, like 'j{p['sep']}doe'.",
          "Is the whole first name used, or just the first letter?"),
     Fact("max_len", 0, _pick(6, 8), lambda v, p: f"Usernames are cut to at most {v} characters.",
          "Is there a maximum length for usernames?"),
     Fact("letters_only", False, _pick(True),
          lambda v, p: "Any character that is not a letter, like an apostrophe or a hyphen, is removed from the names.",
          "What about characters like apostrophes or hyphens in names?")),
    _user_describe, _user_body, _user_candidates)


#: All templates by name, in a fixed order (the seeded choice indexes this order).
TEMPLATES: dict[str, Template] = {t.name: t for t in (
    TIP, DISCOUNT, SHIPPING, LOYALTY, GRADE, TEMPERATURE, SORTING, FRUIT, NAMES, LATE_FEE, BULK, CALORIES, PAY,
    USERNAME)}
_TEMPLATE_ORDER = tuple(TEMPLATES)

#: Named subsets of the templates (``family`` of :func:`generate_task`). ``"rate"``: the templates
#: whose difficulty-1 function is the argument times one hidden number (a tip, a discount, loyalty
#: points, a late fee, a unit price, calories, an hourly rate) -- the tasks a very small policy
#: (the embedded SmolLM2-135M) can sometimes solve, used by ``colbench pipeline --small``.
FAMILIES: dict[str, tuple] = {
    "all": _TEMPLATE_ORDER,
    "rate": ("tip", "discount_tiers", "loyalty_points", "late_fee", "bulk_unit_price", "workout_calories",
             "weekly_pay"),
    # "ask": the rate template whose hidden number the offline scripted human gives only when asked
    # about it: the request says "weekly pay from the hours" and the fact is an "hourly rate", so a
    # code draft built from the request's words draws "I don't know" -- the first turns decide
    # (tests/test_family_ask.py pins this for every task of the family).
    "ask": ("weekly_pay",),
}
