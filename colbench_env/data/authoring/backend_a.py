"""Part A of the embedded default ColBench backend tasks, authored by hand.

Each task is an official ColBench backend record plus our ``task_id``, ``split`` and
``generic_solution`` fields::

    {"task_id": "a001", "split": "train",
     "problem_description": "I want a function that ... The signature of the function is: def f(x, y)",
     "ground_truth": "def f(x, y):\\n    ...",
     "test_cases": {"test1": "f(1, 2)", ..., "test10": "f(3, 4)"},
     "hidden_information": "One plain-words fact per sentence.",
     "generic_solution": "def f(x, y):\\n    ..."}

``problem_description`` is the human's vague first-person request; it never states the personal
parameters (rates, thresholds, category names, orderings, rounding, edge-case rules). Those live in
``hidden_information``, one fact per sentence, worded the way an agent would ask about them, so that
the description plus the hidden information fully determine the ground truth. ``ground_truth`` is a
pure, deterministic, standard-library-only function whose float results are rounded, so test
results compare exactly with ``==``. ``test_cases`` holds exactly 10 calls with literal arguments,
each returning a non-``None`` value, chosen to exercise every hidden rule and to stay clear of
floating-point rounding ties. ``generic_solution`` is the plausible function an agent writes without
asking (common conventions, sensible defaults); it fails at least one test.

Themes of part A: personal finance and shopping (a001-a008), home and cooking (a009-a016), fitness
and health (a017-a024), travel and commuting (a025-a032), school and grading (a033-a040), pets and
gardening (a041-a048), games and scoring (a049-a055). Task ``i`` gets the id ``a{i:03d}``; every
fifth task (``a005``, ``a010``, ...) is in the ``"test"`` split, the others in ``"train"``.

Regenerate the packaged file after editing a task::

    python -m colbench_env.data.authoring.backend_a    # writes colbench_env/data/backend/part_a.jsonl
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ...records import split_of  # every fifth task (1-based) is test
from . import SIGNATURE_SENTENCE, backend_task, jsonl_text, signature_of, write_cli, write_text

__all__ = ["DEFAULT_PATH", "SIGNATURE_SENTENCE", "TASKS", "task_id", "split_of", "signature_of",
           "render_jsonl", "write_jsonl", "main"]

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "backend" / "part_a.jsonl"
"""Where :func:`write_jsonl` writes by default: part A of the packaged embedded backend set."""

def task_id(number: int) -> str:
    """The id of the ``number``-th task of part A (1-based): ``a001``, ``a002``, ..."""
    return f"a{number:03d}"


def _task(number: int, **fields) -> dict:
    """Task ``number`` (1-based) of part A: :func:`~colbench_env.data.authoring.backend_task`'s record."""
    return backend_task(task_id=task_id(number), split=split_of(number), **fields)


TASKS: list[dict] = [
    # ------------------------------------------------------------------ personal finance & shopping
    _task(
        1,
        description="""I want a function that works out how much I should tip at a restaurant depending on
            how good the service was. I have my own habits about tipping and I'd like the function to
            follow them.""",
        ground_truth='''
            def calculate_tip(bill, service_quality):
                import math
                rates = {"bad": 0.05, "okay": 0.12, "good": 0.18, "excellent": 0.25}
                tip = bill * rates.get(service_quality, 0.15)
                return math.ceil(round(tip, 2))
            ''',
        tests=[
            "calculate_tip(47.3, 'good')", "calculate_tip(100, 'excellent')", "calculate_tip(23.5, 'bad')",
            "calculate_tip(60, 'okay')", "calculate_tip(80, 'great')", "calculate_tip(12.0, 'good')",
            "calculate_tip(250, 'excellent')", "calculate_tip(9.99, 'bad')", "calculate_tip(151, 'okay')",
            "calculate_tip(33.33, 'average')",
        ],
        hidden="""The service quality is one of the words 'bad', 'okay', 'good' or 'excellent'. I tip 5
            percent for bad service. I tip 12 percent for okay service. I tip 18 percent for good
            service. I tip 25 percent for excellent service. For any other word I tip 15 percent. The
            tip percentage is applied to the bill amount. I always round the tip up to the next whole
            dollar. The function returns only the tip, not the bill plus tip.""",
        generic='''
            def calculate_tip(bill, service_quality):
                rates = {"poor": 0.10, "average": 0.15, "good": 0.18, "excellent": 0.20}
                return round(bill * rates.get(service_quality, 0.15), 2)
            ''',
    ),
    _task(
        2,
        description="""I'd like a function that splits my monthly take-home pay into the budget buckets I
            use. Give it my income and it should tell me how much goes where.""",
        ground_truth='''
            def budget_split(income):
                base = min(income, 6000)
                extra = max(income - 6000, 0)
                return {
                    "needs": round(base * 0.55, 2),
                    "wants": round(base * 0.20, 2),
                    "savings": round(base * 0.20 + extra, 2),
                    "giving": round(base * 0.05, 2),
                }
            ''',
        tests=[
            "budget_split(3000)", "budget_split(4250.4)", "budget_split(6000)", "budget_split(8000)",
            "budget_split(0)", "budget_split(1234.56)", "budget_split(10000)", "budget_split(6000.01)",
            "budget_split(500)", "budget_split(7250.75)",
        ],
        hidden="""I use four buckets called 'needs', 'wants', 'savings' and 'giving'. The needs bucket gets 55
            percent of the income. The wants bucket gets 20 percent of the income. The savings bucket
            gets 20 percent of the income. The giving bucket gets 5 percent of the income. Those
            percentages only apply to the first 6000 dollars of income. Every dollar above 6000 goes straight into
            savings. Each amount is rounded to 2 decimals. The function returns a dict with the four
            bucket names as keys.""",
        generic='''
            def budget_split(income):
                return {
                    "needs": round(income * 0.50, 2),
                    "wants": round(income * 0.30, 2),
                    "savings": round(income * 0.20, 2),
                }
            ''',
    ),
    _task(
        3,
        description="""My favourite store has a loyalty program and I want to check the points they give me.
            Write a function that takes the list of my purchase amounts and returns how many points I
            should have earned.""",
        ground_truth='''
            def loyalty_points(purchases):
                points = 0
                for amount in purchases:
                    if amount <= 0:
                        continue
                    earned = int(amount)
                    if amount >= 100:
                        earned *= 2
                    points += earned
                if points >= 500:
                    points += 50
                return points
            ''',
        tests=[
            "loyalty_points([12.99, 5.5, 30])", "loyalty_points([100])", "loyalty_points([99.99, 100.01])",
            "loyalty_points([-20, 45.75])", "loyalty_points([])", "loyalty_points([250, 10.5])",
            "loyalty_points([300, 60])", "loyalty_points([499.99])", "loyalty_points([19.99, 19.99, 19.99])",
            "loyalty_points([120, -120, 80.8, 0])",
        ],
        hidden="""Each purchase earns 1 point per whole dollar, and the cents are dropped for each purchase
            separately. A single purchase of 100 dollars or more earns double points. Refunds show up as
            negative amounts and earn nothing; they don't take points away either. A purchase of 0
            earns nothing. If the points add up to 500 or more, there is a one-time bonus of 50 points.
            The function returns the whole number of points.""",
        generic='''
            def loyalty_points(purchases):
                return int(sum(purchases))
            ''',
    ),
    _task(
        4,
        description="""When I shop I want to know which package is the best deal. I'll give the function a
            dict mapping each item name to its price and how many units are in the package, and it
            should tell me which one to buy.""",
        ground_truth='''
            def best_value(items):
                best = None
                for name, (price, quantity) in items.items():
                    if quantity <= 0 or quantity > 24:
                        continue
                    key = (price / quantity, -quantity, name)
                    if best is None or key < best:
                        best = key
                return best[2] if best is not None else "none"
            ''',
        tests=[
            "best_value({'rice_small': [2.0, 4], 'rice_big': [4.0, 8]})",
            "best_value({'a': [3.0, 2], 'b': [5.0, 4]})",
            "best_value({'bulk': [10.0, 40], 'pack': [3.0, 6]})",
            "best_value({'x': [1.0, 0], 'y': [2.0, 1]})",
            "best_value({})",
            "best_value({'zeta': [1.0, 2], 'alpha': [1.0, 2]})",
            "best_value({'eggs6': [1.5, 6], 'eggs12': [3.0, 12], 'eggs30': [6.0, 30]})",
            "best_value({'soap': [4.5, 3]})",
            "best_value({'p': [2.4, 24], 'q': [2.5, 25]})",
            "best_value({'m': [7.0, 5], 'n': [6.0, 4], 'o': [9.0, 6]})",
        ],
        hidden="""Best value means the lowest price per unit. I never buy packages with more than 24 units
            because they don't fit in my pantry, so skip those. Packages with 0 units are skipped too.
            If two items tie on price per unit, pick the one with the bigger package. If they still tie,
            pick the name that comes first alphabetically. If no item qualifies, return the string
            'none'.""",
        generic='''
            def best_value(items):
                return min(items, key=lambda name: items[name][0] / items[name][1])
            ''',
    ),
    _task(
        5,
        description="""When I go out to eat with friends I'm usually the one splitting the check. I need a
            function that tells each person how much to pay, given the bill total, the number of people
            and how many of them are celebrating a birthday.""",
        ground_truth='''
            def split_bill(total, num_people, birthday_people):
                import math
                payers = num_people - birthday_people
                if payers <= 0:
                    return 0.0
                share = total * 1.15 / payers
                return math.ceil(share * 2) / 2
            ''',
        tests=[
            "split_bill(100, 4, 0)", "split_bill(100, 4, 1)", "split_bill(60, 2, 2)", "split_bill(87.4, 5, 1)",
            "split_bill(250, 6, 0)", "split_bill(45.2, 3, 0)", "split_bill(310, 8, 2)", "split_bill(19.99, 1, 0)",
            "split_bill(500, 10, 3)", "split_bill(130, 7, 1)",
        ],
        hidden="""We always add a 15 percent tip to the bill total before splitting. People celebrating
            their birthday don't pay anything. Everyone else splits the total plus tip equally. Each
            share is rounded up to the next 50 cents so we're never short. If everyone at the table is
            having a birthday, return 0.0. The function returns the share of one paying person.""",
        generic='''
            def split_bill(total, num_people, birthday_people):
                return round(total / num_people, 2)
            ''',
    ),
    _task(
        6,
        description="""I'm trying to pay off my credit card and want to know how long it will take. Write a
            function that takes my current balance and what I pay each month and tells me how many
            months until it's gone.""",
        ground_truth='''
            def payoff_months(balance, monthly_payment):
                if balance <= 0:
                    return 0
                if monthly_payment <= balance * 0.015:
                    return -1
                months = 0
                while balance > 0:
                    balance = balance * 1.015 - monthly_payment
                    months += 1
                return months
            ''',
        tests=[
            "payoff_months(1000, 100)", "payoff_months(5000, 200)", "payoff_months(500, 7)",
            "payoff_months(300, 300)", "payoff_months(0, 50)", "payoff_months(2500, 500)",
            "payoff_months(1200, 1300)", "payoff_months(10000, 140)", "payoff_months(10000, 250)",
            "payoff_months(750, 50)",
        ],
        hidden="""My card charges 1.5 percent interest per month. The interest is added to the balance at
            the start of each month, and then my monthly payment is taken off. The function returns the
            number of months until the balance is paid off, counting the last, smaller payment as a
            month. If the payment isn't more than the first month's interest, the debt never shrinks,
            so return -1. A balance of zero or less needs 0 months.""",
        generic='''
            def payoff_months(balance, monthly_payment):
                import math
                if balance <= 0:
                    return 0
                return math.ceil(balance / monthly_payment)
            ''',
    ),
    _task(
        7,
        description="""There's a big sale coming and I want to know what I'll actually pay at the register
            for something. The function gets the ticket price and the item's category and returns the
            final price.""",
        ground_truth='''
            def sale_price(price, category):
                if category == "clothing":
                    price = price * 0.7
                elif category == "electronics":
                    if price > 200:
                        price = price * 0.9
                elif category != "grocery":
                    price = price * 0.85
                if category != "grocery":
                    price = price * 1.08
                return round(price, 2)
            ''',
        tests=[
            "sale_price(50, 'clothing')", "sale_price(250, 'electronics')", "sale_price(200, 'electronics')",
            "sale_price(12.49, 'grocery')", "sale_price(80, 'toys')", "sale_price(19.99, 'clothing')",
            "sale_price(999.99, 'electronics')", "sale_price(3.5, 'grocery')", "sale_price(45.5, 'books')",
            "sale_price(150, 'electronics')",
        ],
        hidden="""Categories are written in lowercase, like 'clothing', 'electronics' and 'grocery'.
            Clothing is 30 percent off. Electronics are 10 percent off, but only when the price is over
            200 dollars. Groceries never get a discount. Any other category gets 15 percent off. After
            the discount, 8 percent sales tax is added. Groceries are not taxed. The final price is
            rounded to 2 decimals.""",
        generic='''
            def sale_price(price, category):
                discounts = {"clothing": 0.20, "electronics": 0.10, "grocery": 0.05}
                return round(price * (1 - discounts.get(category, 0.0)), 2)
            ''',
    ),
    _task(
        8,
        description="""I'm saving up for something and I put money aside every week. I want a function that
            tells me how many weeks it will take to reach my goal, given the goal, my weekly deposit and
            what I've already saved.""",
        ground_truth='''
            def savings_weeks(goal, weekly_deposit, current_savings):
                weeks = 0
                saved = current_savings
                deposit = weekly_deposit
                while saved < goal:
                    saved += deposit
                    deposit += 2
                    weeks += 1
                return weeks
            ''',
        tests=[
            "savings_weeks(100, 10, 0)", "savings_weeks(500, 50, 100)", "savings_weeks(100, 10, 100)",
            "savings_weeks(1000, 20, 0)", "savings_weeks(60, 60, 0)", "savings_weeks(61, 60, 0)",
            "savings_weeks(250, 5, 30)", "savings_weeks(5000, 100, 1000)", "savings_weeks(10, 1, 9)",
            "savings_weeks(300, 25, 240)",
        ],
        hidden="""Money I already have saved counts toward the goal. In the first week I put in the weekly
            deposit amount. Every week after that I put in 2 dollars more than the week before. The
            function returns the number of weeks until my savings reach the goal or go past it. If I
            already have enough, that's 0 weeks.""",
        generic='''
            def savings_weeks(goal, weekly_deposit, current_savings):
                import math
                remaining = goal - current_savings
                if remaining <= 0:
                    return 0
                return math.ceil(remaining / weekly_deposit)
            ''',
    ),
    # ------------------------------------------------------------------ home & cooking
    _task(
        9,
        description="""I cook from my own recipe cards and often need to make more or fewer servings. I want a
            function that takes a recipe's ingredients as a dict of ingredient name to amount and the
            number of servings I want, and returns the adjusted amounts.""",
        ground_truth='''
            def scale_recipe(ingredients, servings):
                import math
                scaled = {}
                for name, amount in ingredients.items():
                    new_amount = amount * servings / 6
                    if name == "eggs":
                        scaled[name] = math.ceil(new_amount)
                    elif name == "salt":
                        scaled[name] = round(min(new_amount, amount * 2), 1)
                    else:
                        scaled[name] = round(new_amount, 1)
                return scaled
            ''',
        tests=[
            "scale_recipe({'flour': 300, 'eggs': 2, 'salt': 5}, 3)",
            "scale_recipe({'flour': 300, 'eggs': 3, 'salt': 4}, 18)",
            "scale_recipe({'sugar': 120, 'eggs': 4}, 4)",
            "scale_recipe({'milk': 250, 'butter': 50}, 1)",
            "scale_recipe({'rice': 400, 'salt': 6}, 12)",
            "scale_recipe({'eggs': 1}, 7)",
            "scale_recipe({'oil': 30, 'salt': 3}, 15)",
            "scale_recipe({'flour': 500, 'eggs': 5, 'yeast': 7}, 5)",
            "scale_recipe({}, 4)",
            "scale_recipe({'pasta': 600, 'salt': 10}, 9)",
        ],
        hidden="""All my recipe cards are written for 6 servings. Every ingredient is scaled by the number
            of servings I want divided by 6. Scaled amounts are rounded to 1 decimal place. Eggs are
            always rounded up to a whole number of eggs. Salt is never more than double the original
            amount, however many servings I make. The ingredient names are exactly 'eggs' and 'salt'
            for those two.""",
        generic='''
            def scale_recipe(ingredients, servings):
                factor = servings / 4
                return {name: round(amount * factor, 2) for name, amount in ingredients.items()}
            ''',
    ),
    _task(
        10,
        description="""I roast meat most Sundays and always forget how long it needs in the oven. Write a
            function that takes the weight in kilograms and the kind of meat and returns the roasting
            time in minutes.""",
        ground_truth='''
            def roast_time(weight_kg, meat):
                import math
                rules = {"chicken": (45, 20), "beef": (40, 15), "pork": (50, 25)}
                per_kg, extra = rules.get(meat, (60, 0))
                minutes = weight_kg * per_kg + extra
                return math.ceil(minutes / 5) * 5
            ''',
        tests=[
            "roast_time(1.5, 'chicken')", "roast_time(2, 'beef')", "roast_time(1.35, 'pork')",
            "roast_time(2.2, 'chicken')", "roast_time(0.8, 'lamb')", "roast_time(3, 'pork')",
            "roast_time(1.1, 'beef')", "roast_time(2.75, 'turkey')", "roast_time(1, 'chicken')",
            "roast_time(4.3, 'beef')",
        ],
        hidden="""Chicken roasts for 45 minutes per kilogram plus an extra 20 minutes. Beef roasts for 40
            minutes per kilogram plus an extra 15 minutes. Pork roasts for 50 minutes per kilogram plus
            an extra 25 minutes. Any other meat gets 60 minutes per kilogram with nothing extra. I round
            the total up to the next multiple of 5 minutes. The result is a whole number of minutes.""",
        generic='''
            def roast_time(weight_kg, meat):
                per_kg = {"chicken": 40, "beef": 44, "pork": 55, "lamb": 44}.get(meat, 45)
                return round(weight_kg * per_kg)
            ''',
    ),
    _task(
        11,
        description="""Our household shares the chores and I want a function to work out who does what each
            week. It gets the list of names and the week number and returns a dict saying which chore
            each person has.""",
        ground_truth='''
            def chore_rotation(names, week):
                slots = ["dishes", "trash", "vacuum", "laundry"]
                slots += ["free"] * max(0, len(names) - len(slots))
                return {name: slots[(i + week - 1) % len(slots)] for i, name in enumerate(names)}
            ''',
        tests=[
            "chore_rotation(['Ann', 'Ben', 'Cal', 'Dee'], 1)",
            "chore_rotation(['Ann', 'Ben', 'Cal', 'Dee'], 2)",
            "chore_rotation(['Ann', 'Ben', 'Cal', 'Dee'], 5)",
            "chore_rotation(['Ann', 'Ben'], 3)",
            "chore_rotation(['A', 'B', 'C', 'D', 'E', 'F'], 1)",
            "chore_rotation(['A', 'B', 'C', 'D', 'E', 'F'], 4)",
            "chore_rotation(['Zoe'], 2)",
            "chore_rotation(['Max', 'Lia', 'Kai'], 4)",
            "chore_rotation([], 1)",
            "chore_rotation(['P', 'Q', 'R', 'S', 'T'], 7)",
        ],
        hidden="""The chores are 'dishes', 'trash', 'vacuum' and 'laundry', in that order. In week 1 the
            first person gets dishes, the second gets trash, and so on down the list. Each new week
            everyone moves one chore further along the list, wrapping around to the start. If there are
            more than four people, add one 'free' slot per extra person at the end of the chore list.
            With fewer than four people the list still has all four chores, so some chores are skipped
            that week.""",
        generic='''
            def chore_rotation(names, week):
                chores = ["dishes", "laundry", "vacuuming", "trash"]
                return {name: chores[(i + week) % len(chores)] for i, name in enumerate(names)}
            ''',
    ),
    _task(
        12,
        description="""Everyone in my family writes their own grocery list and I want to merge them into one
            list for my shopping trip. The function gets a list of lists of item names and returns a
            single list of items.""",
        ground_truth='''
            def merge_grocery_lists(lists):
                counts = {}
                for shopping_list in lists:
                    seen = {item.strip().lower() for item in shopping_list}
                    for item in seen:
                        if item:
                            counts[item] = counts.get(item, 0) + 1
                return sorted(counts, key=lambda item: (-counts[item], item))
            ''',
        tests=[
            "merge_grocery_lists([['Milk', 'eggs'], ['milk', 'Bread']])",
            "merge_grocery_lists([['apples'], ['bananas'], ['apples', 'bananas', 'cherries']])",
            "merge_grocery_lists([[' Tea ', 'tea'], ['TEA']])",
            "merge_grocery_lists([])",
            "merge_grocery_lists([['b', 'a', 'c']])",
            "merge_grocery_lists([['x', ''], ['  ', 'y'], ['y']])",
            "merge_grocery_lists([['Rice', 'Beans'], ['beans', 'Corn'], ['corn', 'BEANS']])",
            "merge_grocery_lists([['zucchini', 'Apple'], ['apple']])",
            "merge_grocery_lists([['Salt', 'Pepper', 'salt'], ['pepper']])",
            "merge_grocery_lists([['Oats'], ['Oats'], ['Honey'], ['honey'], ['HONEY']])",
        ],
        hidden="""Two items are the same if they match ignoring upper and lower case and any spaces around
            them. Items in the result are written in lowercase with no surrounding spaces. Blank entries
            are ignored. An item written twice on the same list only counts once for that list. The
            result is sorted by how many lists an item appears on, most first. Ties are sorted
            alphabetically.""",
        generic='''
            def merge_grocery_lists(lists):
                return sorted({item for shopping_list in lists for item in shopping_list})
            ''',
    ),
    _task(
        13,
        description="""I want a little function for my smart thermostat that picks the temperature it should
            be set to. It gets the hour of the day, whether it's a weekend, and whether someone is at
            home.""",
        ground_truth='''
            def thermostat_setting(hour, is_weekend, someone_home):
                if not someone_home:
                    return 16
                if hour >= 22 or hour < 7:
                    return 18
                return 22 if is_weekend else 21
            ''',
        tests=[
            "thermostat_setting(8, False, True)", "thermostat_setting(8, True, True)",
            "thermostat_setting(23, False, True)", "thermostat_setting(6, True, True)",
            "thermostat_setting(7, False, True)", "thermostat_setting(22, True, True)",
            "thermostat_setting(3, False, False)", "thermostat_setting(14, True, False)",
            "thermostat_setting(21, False, True)", "thermostat_setting(0, True, True)",
        ],
        hidden="""The hour goes from 0 to 23. Temperatures are in degrees Celsius. When nobody is home, it
            is set to 16 degrees, at any hour. At night, from 22:00 until 7:00 in the morning, it is 18
            degrees. During the day it is 21 degrees on weekdays. During the day it is 22 degrees on
            weekends.""",
        generic='''
            def thermostat_setting(hour, is_weekend, someone_home):
                if not someone_home:
                    return 15
                if hour >= 23 or hour < 6:
                    return 17
                return 20
            ''',
    ),
    _task(
        14,
        description="""A lot of the baking recipes I find use cups and spoons, but I bake with a kitchen scale.
            I need a function that converts an amount of flour in some unit into grams.""",
        ground_truth='''
            def flour_to_grams(amount, unit):
                grams_per_unit = {"cup": 125, "tbsp": 8, "tsp": 3, "g": 1}
                if unit not in grams_per_unit:
                    return 0
                return round(amount * grams_per_unit[unit])
            ''',
        tests=[
            "flour_to_grams(1, 'cup')", "flour_to_grams(0.75, 'cup')", "flour_to_grams(3, 'tbsp')",
            "flour_to_grams(4, 'tsp')", "flour_to_grams(0.25, 'tsp')", "flour_to_grams(250.4, 'g')",
            "flour_to_grams(2, 'oz')", "flour_to_grams(1.2, 'cup')", "flour_to_grams(0.33, 'cup')",
            "flour_to_grams(5, 'tbsp')",
        ],
        hidden="""The unit is written as 'cup', 'tbsp', 'tsp' or 'g'. I count one cup of flour as 125
            grams. A tablespoon of flour is 8 grams. A teaspoon of flour is 3 grams. Amounts already in
            grams stay as they are. The answer is rounded to the nearest whole gram. For any other unit
            return 0.""",
        generic='''
            def flour_to_grams(amount, unit):
                grams_per_unit = {"cup": 120, "tbsp": 7.5, "tsp": 2.5, "g": 1}
                if unit not in grams_per_unit:
                    raise ValueError("unknown unit: " + unit)
                return round(amount * grams_per_unit[unit], 1)
            ''',
    ),
    _task(
        15,
        description="""I keep forgetting whether leftovers are still okay to eat. Write a function that tells
            me if something is safe, given how many days old it is, what kind of food it is, and
            whether it was kept in the fridge.""",
        ground_truth='''
            def leftovers_safe(days_old, food_type, refrigerated):
                if not refrigerated:
                    return days_old == 0
                limits = {"meat": 3, "fish": 2, "rice": 1, "soup": 4}
                return days_old <= limits.get(food_type, 5)
            ''',
        tests=[
            "leftovers_safe(0, 'meat', False)", "leftovers_safe(1, 'soup', False)",
            "leftovers_safe(3, 'meat', True)", "leftovers_safe(4, 'meat', True)",
            "leftovers_safe(2, 'fish', True)", "leftovers_safe(3, 'fish', True)",
            "leftovers_safe(1, 'rice', True)", "leftovers_safe(2, 'rice', True)",
            "leftovers_safe(5, 'pasta', True)", "leftovers_safe(4, 'soup', True)",
        ],
        hidden="""If the food wasn't kept in the fridge, it is only safe on the day it was cooked, meaning 0
            days old. In the fridge, meat is good for up to 3 days. Fish is good for up to 2 days. Rice
            is good for only 1 day. Soup is good for up to 4 days. Any other food in the fridge is good
            for up to 5 days. The last allowed day itself still counts as safe. The function returns
            True or False.""",
        generic='''
            def leftovers_safe(days_old, food_type, refrigerated):
                return refrigerated and days_old <= 4
            ''',
    ),
    _task(
        16,
        description="""My electricity company's bills are confusing and I want to check them myself. Write a
            function that takes how many kWh I used in a month and returns what the bill should be.""",
        ground_truth='''
            def electricity_bill(kwh):
                first = min(kwh, 300)
                second = min(max(kwh - 300, 0), 400)
                third = max(kwh - 700, 0)
                return round(9.5 + first * 0.12 + second * 0.15 + third * 0.20, 2)
            ''',
        tests=[
            "electricity_bill(0)", "electricity_bill(250)", "electricity_bill(300)", "electricity_bill(450)",
            "electricity_bill(700)", "electricity_bill(900)", "electricity_bill(1234)",
            "electricity_bill(123.4)", "electricity_bill(512.4)", "electricity_bill(1000)",
        ],
        hidden="""The first 300 kWh cost 0.12 dollars each. The next 400 kWh, from 300 up to 700, cost 0.15
            dollars each. Every kWh above 700 costs 0.20 dollars. There is a fixed monthly fee of 9.50
            dollars on top, even if I use nothing. The total is rounded to 2 decimals.""",
        generic='''
            def electricity_bill(kwh):
                return round(kwh * 0.15, 2)
            ''',
    ),
    # ------------------------------------------------------------------ fitness & health
    _task(
        17,
        description="""I follow a weekly workout routine and want a function that tells me what to do on a
            given day. It takes the day of the week and my fitness level and returns the workout.""",
        ground_truth='''
            def workout_plan(day, level):
                activities = {
                    "Monday": "strength", "Tuesday": "cardio", "Wednesday": "yoga", "Thursday": "strength",
                    "Friday": "cardio", "Saturday": "long run", "Sunday": "rest",
                }
                minutes = {"beginner": 20, "intermediate": 40, "advanced": 60}[level]
                activity = activities[day]
                if activity == "rest":
                    return ("rest", 0)
                if activity == "long run":
                    minutes *= 2
                return (activity, minutes)
            ''',
        tests=[
            "workout_plan('Monday', 'beginner')", "workout_plan('Tuesday', 'advanced')",
            "workout_plan('Wednesday', 'intermediate')", "workout_plan('Thursday', 'advanced')",
            "workout_plan('Friday', 'beginner')", "workout_plan('Saturday', 'beginner')",
            "workout_plan('Saturday', 'advanced')", "workout_plan('Sunday', 'intermediate')",
            "workout_plan('Monday', 'intermediate')", "workout_plan('Wednesday', 'beginner')",
        ],
        hidden="""Days are written with a capital first letter, like 'Monday'. Levels are 'beginner',
            'intermediate' and 'advanced'. Monday and Thursday are 'strength' days. Tuesday and Friday
            are 'cardio' days. Wednesday is a 'yoga' day. Saturday is a 'long run' day. Sunday is a 'rest'
            day with 0 minutes. A workout lasts 20 minutes for beginners, 40 minutes for intermediate and 60
            minutes for advanced. The Saturday long run lasts twice as long as a normal workout. The
            function returns a tuple of the activity name and the minutes.""",
        generic='''
            def workout_plan(day, level):
                plan = {
                    "Monday": "cardio", "Tuesday": "strength", "Wednesday": "rest", "Thursday": "cardio",
                    "Friday": "strength", "Saturday": "cardio", "Sunday": "rest",
                }
                minutes = {"beginner": 30, "intermediate": 45, "advanced": 60}.get(level, 30)
                activity = plan.get(day, "rest")
                return (activity, 0 if activity == "rest" else minutes)
            ''',
    ),
    _task(
        18,
        description="""I log my exercise and want to estimate how many calories I burned. The function takes
            the activity, how many minutes I did it and my weight in kilograms.""",
        ground_truth='''
            def calories_burned(activity, minutes, weight_kg):
                met = {"walking": 3.5, "running": 9.8, "cycling": 7.5, "swimming": 6.0}.get(activity, 4.0)
                return round(met * weight_kg * minutes / 60 * 0.9)
            ''',
        tests=[
            "calories_burned('running', 30, 70)", "calories_burned('walking', 60, 80)",
            "calories_burned('cycling', 45, 65)", "calories_burned('swimming', 20, 55)",
            "calories_burned('yoga', 60, 60)", "calories_burned('running', 10, 90)",
            "calories_burned('walking', 15, 100)", "calories_burned('dancing', 40, 72)",
            "calories_burned('cycling', 90, 85)", "calories_burned('swimming', 33, 61)",
        ],
        hidden="""I use these MET values: walking 3.5, running 9.8, cycling 7.5 and swimming 6.0. Any other
            activity uses a MET value of 4.0. Calories are the MET value times my weight in kilograms
            times the hours of exercise. Then I take off 10 percent, because trackers tend to
            overestimate. The result is rounded to the nearest whole calorie.""",
        generic='''
            def calories_burned(activity, minutes, weight_kg):
                met = {"walking": 3.8, "running": 8.0, "cycling": 7.5, "swimming": 7.0}.get(activity, 5.0)
                return round(met * weight_kg * minutes / 60, 1)
            ''',
    ),
    _task(
        19,
        description="""My watch shows my heart rate but I want to know which training zone I'm in. Write a
            function that takes my age and my current heart rate in beats per minute and returns the
            zone name.""",
        ground_truth='''
            def heart_rate_zone(age, bpm):
                max_hr = 208 - 0.7 * age
                percent = bpm / max_hr * 100
                if percent < 50:
                    return "rest"
                if percent < 60:
                    return "easy"
                if percent < 70:
                    return "fat burn"
                if percent < 85:
                    return "cardio"
                return "peak"
            ''',
        tests=[
            "heart_rate_zone(30, 80)", "heart_rate_zone(30, 100)", "heart_rate_zone(30, 120)",
            "heart_rate_zone(30, 150)", "heart_rate_zone(30, 165)", "heart_rate_zone(50, 140)",
            "heart_rate_zone(50, 150)", "heart_rate_zone(20, 115)", "heart_rate_zone(60, 100)",
            "heart_rate_zone(45, 148)",
        ],
        hidden="""I estimate my maximum heart rate as 208 minus 0.7 times my age. The zone depends on my
            heart rate as a percentage of that maximum. Below 50 percent the zone is 'rest'. From 50 up
            to 60 percent the zone is 'easy'. From 60 up to 70 percent the zone is 'fat burn'. From 70 up
            to 85 percent the zone is 'cardio'. At 85 percent and above the zone is 'peak'.""",
        generic='''
            def heart_rate_zone(age, bpm):
                percent = bpm / (220 - age) * 100
                if percent < 60:
                    return "very light"
                if percent < 70:
                    return "light"
                if percent < 80:
                    return "moderate"
                if percent < 90:
                    return "hard"
                return "maximum"
            ''',
    ),
    _task(
        20,
        description="""I want to drink enough water every day. Write a function that tells me how much I
            should drink, based on my weight in kilograms, how many minutes I exercised and whether it's
            a hot day.""",
        ground_truth='''
            def water_intake(weight_kg, exercise_minutes, hot_day):
                ml = weight_kg * 35 + exercise_minutes * 12
                if hot_day:
                    ml += 500
                return round(ml / 1000, 1)
            ''',
        tests=[
            "water_intake(60, 0, False)", "water_intake(80, 30, False)", "water_intake(55, 45, True)",
            "water_intake(90, 60, True)", "water_intake(50, 10, False)", "water_intake(72, 20, True)",
            "water_intake(65, 0, True)", "water_intake(100, 90, False)", "water_intake(48, 15, False)",
            "water_intake(85, 5, True)",
        ],
        hidden="""I start from 35 ml of water per kilogram of body weight. Each minute of exercise adds 12
            ml. A hot day adds another 500 ml. The answer is in liters, rounded to 1 decimal.""",
        generic='''
            def water_intake(weight_kg, exercise_minutes, hot_day):
                liters = weight_kg * 0.033 + exercise_minutes / 30 * 0.35
                if hot_day:
                    liters += 0.5
                return round(liters, 2)
            ''',
    ),
    _task(
        21,
        description="""I'd like a quick function to check my BMI. It should take my weight and my height and
            tell me the number and what category I fall into.""",
        ground_truth='''
            def bmi_report(weight_kg, height_cm):
                bmi = round(weight_kg / (height_cm / 100) ** 2, 1)
                if bmi < 18.5:
                    category = "under"
                elif bmi < 25:
                    category = "normal"
                elif bmi < 30:
                    category = "over"
                else:
                    category = "obese"
                return (bmi, category)
            ''',
        tests=[
            "bmi_report(70, 175)", "bmi_report(50, 170)", "bmi_report(90, 180)", "bmi_report(110, 175)",
            "bmi_report(56.56, 175)", "bmi_report(76.5, 175)", "bmi_report(60, 160)", "bmi_report(45, 155)",
            "bmi_report(100, 200)", "bmi_report(150, 190)",
        ],
        hidden="""Weight is in kilograms and height is in centimeters, not meters. BMI is the weight divided
            by the height in meters squared. I round the BMI to 1 decimal before deciding the category.
            Below 18.5 the category is 'under'. From 18.5 up to 25 the category is 'normal'. From 25 up
            to 30 the category is 'over'. A BMI of 30 and above is 'obese'. The function returns a tuple of the
            rounded BMI and the category word.""",
        generic='''
            def bmi_report(weight_kg, height_m):
                bmi = round(weight_kg / height_m ** 2, 1)
                if bmi < 18.5:
                    return (bmi, "Underweight")
                if bmi < 25:
                    return (bmi, "Normal weight")
                if bmi < 30:
                    return (bmi, "Overweight")
                return (bmi, "Obese")
            ''',
    ),
    _task(
        22,
        description="""I track my daily step count and I want to know my best streak of active days. The
            function gets the list of my daily step counts in order and returns the longest streak.""",
        ground_truth='''
            def longest_streak(daily_steps):
                best = current = 0
                for steps in daily_steps:
                    if steps >= 8000:
                        current += 1
                        best = max(best, current)
                    elif steps < 5000:
                        current = 0
                return best
            ''',
        tests=[
            "longest_streak([9000, 8000, 7999, 8500, 3000, 10000])", "longest_streak([])",
            "longest_streak([4000, 4999])", "longest_streak([12000, 12000, 12000, 12000])",
            "longest_streak([6000, 6000, 9000])", "longest_streak([8000, 4999, 8000, 8000])",
            "longest_streak([10000, 5000, 10000, 5000, 10000])", "longest_streak([7000, 7500])",
            "longest_streak([8001, 2000, 8001, 6000, 8001, 8001, 100, 9000])",
            "longest_streak([15000, 11000, 4000, 9000, 9500, 9999, 10001])",
        ],
        hidden="""A day counts toward a streak if I walked 8000 steps or more. A day with at least 5000 but
            fewer than 8000 steps is a rest day. A rest day doesn't add to the streak, but it doesn't
            break it either. A day under 5000 steps breaks the streak. The function returns the length
            of the longest streak, counting only the active days.""",
        generic='''
            def longest_streak(daily_steps):
                best = current = 0
                for steps in daily_steps:
                    if steps >= 10000:
                        current += 1
                        best = max(best, current)
                    else:
                        current = 0
                return best
            ''',
    ),
    _task(
        23,
        description="""I'm tracking my protein intake and need a daily target. The function gets my body
            weight in kilograms and my current goal and returns how many grams of protein to eat per
            day.""",
        ground_truth='''
            def protein_target(weight_kg, goal):
                per_kg = {"maintain": 1.6, "build": 2.2, "cut": 2.4}.get(goal, 1.2)
                return 5 * round(weight_kg * per_kg / 5)
            ''',
        tests=[
            "protein_target(70, 'maintain')", "protein_target(80, 'build')", "protein_target(60, 'cut')",
            "protein_target(90, 'relax')", "protein_target(55, 'maintain')", "protein_target(100, 'build')",
            "protein_target(75, 'cut')", "protein_target(68, 'build')", "protein_target(50, 'other')",
            "protein_target(85, 'maintain')",
        ],
        hidden="""The goal is 'maintain', 'build' or 'cut'. To maintain I eat 1.6 grams of protein per
            kilogram of body weight. To build muscle I eat 2.2 grams per kilogram. When cutting I eat 2.4
            grams per kilogram, to keep my muscle. Any other goal uses 1.2 grams per kilogram. I round
            the grams to the nearest multiple of 5.""",
        generic='''
            def protein_target(weight_kg, goal):
                per_kg = {"maintain": 1.2, "build": 1.8, "cut": 2.0}.get(goal, 0.8)
                return round(weight_kg * per_kg)
            ''',
    ),
    _task(
        24,
        description="""I want to give each night of sleep a score out of 100 so I can track it. Write a
            function that takes how many hours I slept and how many times I woke up during the night.""",
        ground_truth='''
            def sleep_score(hours, wakeups):
                score = 100
                if hours < 8:
                    score -= (8 - hours) * 10
                elif hours > 9.5:
                    score -= 5
                score -= wakeups * 7
                return max(0, round(score))
            ''',
        tests=[
            "sleep_score(8, 0)", "sleep_score(7, 1)", "sleep_score(6.5, 2)", "sleep_score(10, 0)",
            "sleep_score(9.5, 1)", "sleep_score(4, 5)", "sleep_score(3, 9)", "sleep_score(7.2, 0)",
            "sleep_score(5.33, 1)", "sleep_score(11, 3)",
        ],
        hidden="""The score starts at 100. I lose 10 points for every hour of sleep below 8, and partial
            hours count proportionally. Sleeping more than 9.5 hours costs a flat 5 points. Each time I
            woke up in the night costs 7 points. The score never goes below 0. The final score is
            rounded to a whole number.""",
        generic='''
            def sleep_score(hours, wakeups):
                score = min(hours / 8, 1) * 100 - wakeups * 5
                return max(0, int(score))
            ''',
    ),
    # ------------------------------------------------------------------ travel & commuting
    _task(
        25,
        description="""I'm deciding how to get to work this month and want to compare the costs. The function
            takes the distance to work in kilometers, the number of days I go in and the way I travel,
            and returns what it costs me.""",
        ground_truth='''
            def commute_cost(distance_km, days, mode):
                if mode == "car":
                    return round(distance_km * 2 * days * 0.30 + 12 * days, 2)
                if mode == "bus":
                    return round(min(days * 2 * 2.75, 95.0), 2)
                return 0.0
            ''',
        tests=[
            "commute_cost(10, 5, 'car')", "commute_cost(10, 5, 'bus')", "commute_cost(15, 20, 'bus')",
            "commute_cost(8, 22, 'bike')", "commute_cost(25.5, 3, 'car')", "commute_cost(12, 17, 'bus')",
            "commute_cost(12, 18, 'bus')", "commute_cost(40, 1, 'car')", "commute_cost(0, 10, 'car')",
            "commute_cost(7.3, 12, 'car')",
        ],
        hidden="""The travel mode is 'car', 'bus' or 'bike'. The distance is one way, and I make the trip
            there and back each day. By car it costs 0.30 dollars per kilometer driven. Parking costs 12
            dollars per day when I drive. By bus each one-way ride costs 2.75 dollars. If the bus rides
            would cost more than the 95 dollar monthly pass, I just buy the pass and pay 95. Biking costs
            nothing. The total is rounded to 2 decimals.""",
        generic='''
            def commute_cost(distance_km, days, mode):
                per_km = {"car": 0.5, "bus": 0.2, "bike": 0.0}.get(mode, 0.0)
                return round(distance_km * days * per_km, 2)
            ''',
    ),
    _task(
        26,
        description="""I always overpack or forget things when I travel. I want a function that tells me how
            many of each clothing item to bring, given the number of days of the trip and what the
            weather will be like.""",
        ground_truth='''
            def packing_list(days, climate):
                items = {
                    "shirts": min(days, 7),
                    "socks": min(days + 1, 8),
                    "pants": max(1, (days + 2) // 3),
                }
                if climate == "cold":
                    items["jacket"] = 1
                    items["sweaters"] = 2
                elif climate == "hot":
                    items["swimsuit"] = 1
                    items["sunscreen"] = 1
                return items
            ''',
        tests=[
            "packing_list(3, 'mild')", "packing_list(5, 'cold')", "packing_list(10, 'hot')",
            "packing_list(1, 'hot')", "packing_list(7, 'cold')", "packing_list(14, 'mild')",
            "packing_list(2, 'rainy')", "packing_list(4, 'hot')", "packing_list(6, 'cold')",
            "packing_list(9, 'mild')",
        ],
        hidden="""The climate is 'cold', 'hot' or anything else for mild weather. I pack one shirt per day,
            but never more than 7 shirts because I can do laundry. Socks are one pair per day plus one
            spare pair, up to 8 pairs at most. Pants are one pair for every 3 days, rounded up, and at
            least one pair. For cold trips I add 1 jacket and 2 sweaters. For hot trips I add 1 swimsuit
            and 1 sunscreen. The result is a dict with the keys 'shirts', 'socks', 'pants', and only when
            they apply 'jacket', 'sweaters', 'swimsuit' and 'sunscreen'.""",
        generic='''
            def packing_list(days, climate):
                items = {"shirts": days, "socks": days, "pants": max(1, days // 2), "underwear": days}
                if climate == "cold":
                    items["jacket"] = 1
                return items
            ''',
    ),
    _task(
        27,
        description="""Before a road trip I like to know what the fuel will cost me. Write a function that
            takes the trip distance in kilometers, my car's fuel efficiency and the fuel price per liter,
            and returns the fuel cost.""",
        ground_truth='''
            def trip_fuel_cost(distance_km, fuel_efficiency, price_per_liter):
                liters = distance_km * 2 * 1.10 * fuel_efficiency / 100
                return round(liters * price_per_liter, 2)
            ''',
        tests=[
            "trip_fuel_cost(100, 6, 1.8)", "trip_fuel_cost(250, 7.5, 1.65)", "trip_fuel_cost(42, 5.2, 1.9)",
            "trip_fuel_cost(500, 8, 2.1)", "trip_fuel_cost(10, 12, 1.5)", "trip_fuel_cost(320, 4.5, 1.75)",
            "trip_fuel_cost(75, 9.8, 1.72)", "trip_fuel_cost(1000, 6.3, 1.59)", "trip_fuel_cost(5, 7, 2.0)",
            "trip_fuel_cost(180, 5.9, 1.83)",
        ],
        hidden="""Fuel efficiency is in liters per 100 kilometers, not kilometers per liter. The distance is
            one way, and I always count the return trip too. I add 10 percent extra distance for detours
            and getting lost. The cost is rounded to 2 decimals.""",
        generic='''
            def trip_fuel_cost(distance_km, fuel_efficiency, price_per_liter):
                return round(distance_km / fuel_efficiency * price_per_liter, 2)
            ''',
    ),
    _task(
        28,
        description="""I'm often rushing to meetings across town. I want a function that tells me whether I'll
            make it, given the time I leave, how many minutes the drive takes and the time the meeting
            starts.""",
        ground_truth='''
            def arrival_status(departure, travel_minutes, meeting):
                def to_minutes(clock):
                    hours, minutes = clock.split(":")
                    return int(hours) * 60 + int(minutes)
                arrival = to_minutes(departure) + travel_minutes + 10
                slack = to_minutes(meeting) - arrival
                if slack < 0:
                    return "late"
                if slack <= 5:
                    return "on time"
                return "early"
            ''',
        tests=[
            "arrival_status('08:00', 30, '08:45')", "arrival_status('08:00', 30, '08:40')",
            "arrival_status('08:00', 30, '08:39')", "arrival_status('07:15', 20, '08:00')",
            "arrival_status('13:50', 15, '14:10')", "arrival_status('09:05', 45, '10:00')",
            "arrival_status('16:30', 5, '16:50')", "arrival_status('11:00', 60, '12:20')",
            "arrival_status('06:00', 0, '06:11')", "arrival_status('22:00', 90, '23:30')",
        ],
        hidden="""Times are 24-hour strings like '08:45', all on the same day. I always add 10 minutes on top
            of the travel time for parking and walking in. If I get there after the meeting starts, the
            answer is 'late'. Arriving exactly at the start, or up to 5 minutes before it, counts as 'on
            time'. Arriving more than 5 minutes before the start is 'early'.""",
        generic='''
            def arrival_status(departure, travel_minutes, meeting):
                dep_h, dep_m = map(int, departure.split(":"))
                meet_h, meet_m = map(int, meeting.split(":"))
                arrival = dep_h * 60 + dep_m + travel_minutes
                return "on time" if arrival <= meet_h * 60 + meet_m else "late"
            ''',
    ),
    _task(
        29,
        description="""My map app gives me a few routes and I want a function to pick one for me. It gets a
            list of routes, each a dict with 'name', 'minutes' and 'tolls' (in dollars), and returns the
            name of the route I should take.""",
        ground_truth='''
            def best_route(routes):
                best = min(routes, key=lambda r: (r["minutes"] * 0.5 + r["tolls"], r["minutes"]))
                return best["name"]
            ''',
        tests=[
            "best_route([{'name': 'highway', 'minutes': 30, 'tolls': 5.0}, {'name': 'backroads', 'minutes': 45, 'tolls': 0.0}])",
            "best_route([{'name': 'A', 'minutes': 40, 'tolls': 0.0}, {'name': 'B', 'minutes': 30, 'tolls': 6.0}])",
            "best_route([{'name': 'A', 'minutes': 40, 'tolls': 0.0}, {'name': 'B', 'minutes': 30, 'tolls': 5.0}])",
            "best_route([{'name': 'only', 'minutes': 25, 'tolls': 3.0}])",
            "best_route([{'name': 'x', 'minutes': 20, 'tolls': 10.0}, {'name': 'y', 'minutes': 35, 'tolls': 2.5}, {'name': 'z', 'minutes': 30, 'tolls': 4.5}])",
            "best_route([{'name': 'toll road', 'minutes': 25, 'tolls': 12.0}, {'name': 'city', 'minutes': 55, 'tolls': 0.0}])",
            "best_route([{'name': 'p', 'minutes': 60, 'tolls': 0.0}, {'name': 'q', 'minutes': 50, 'tolls': 7.5}])",
            "best_route([{'name': 'm', 'minutes': 30, 'tolls': 2.0}, {'name': 'n', 'minutes': 30, 'tolls': 1.0}])",
            "best_route([{'name': 'first', 'minutes': 30, 'tolls': 0.0}, {'name': 'second', 'minutes': 30, 'tolls': 0.0}])",
            "best_route([{'name': 'bridge', 'minutes': 15, 'tolls': 8.0}, {'name': 'tunnel', 'minutes': 18, 'tolls': 6.5}, {'name': 'ferry', 'minutes': 40, 'tolls': 0.0}])",
        ],
        hidden="""I value my time at 50 cents per minute. A route's total cost is its minutes times 0.50
            plus its tolls. I pick the route with the lowest total cost. If two routes tie on cost, I
            take the faster one. If they are still tied, I take the one listed first.""",
        generic='''
            def best_route(routes):
                return min(routes, key=lambda r: r["minutes"])["name"]
            ''',
    ),
    _task(
        30,
        description="""I book a lot of hotel stays and the price at checkout is never what I expect. Write a
            function that takes the nightly rate and the number of nights and returns what I'll really
            pay.""",
        ground_truth='''
            def hotel_total(nightly_rate, nights):
                paid_nights = nights - nights // 7
                return round(nightly_rate * paid_nights * 1.12 + 25, 2)
            ''',
        tests=[
            "hotel_total(100, 1)", "hotel_total(100, 3)", "hotel_total(120, 7)", "hotel_total(89.99, 2)",
            "hotel_total(150, 14)", "hotel_total(75, 6)", "hotel_total(200, 8)", "hotel_total(99.5, 10)",
            "hotel_total(60, 21)", "hotel_total(250.25, 5)",
        ],
        hidden="""Every 7th night is free, so a 7-night stay pays for 6 nights and a 14-night stay pays for
            12. There is a 12 percent hotel tax on the room cost. There is also a one-time resort fee of
            25 dollars per stay, and the fee is not taxed. The total is rounded to 2 decimals.""",
        generic='''
            def hotel_total(nightly_rate, nights):
                return round(nightly_rate * nights * 1.10, 2)
            ''',
    ),
    _task(
        31,
        description="""I travel across time zones for work and want to plan for jet lag. Write a function that
            takes how many time zones I cross and the direction I'm flying, and returns how many days I
            should expect to need to recover.""",
        ground_truth='''
            def jet_lag_days(time_zones, direction):
                import math
                if time_zones <= 2:
                    return 0
                if direction == "east":
                    return time_zones
                return math.ceil(time_zones / 1.5)
            ''',
        tests=[
            "jet_lag_days(1, 'east')", "jet_lag_days(2, 'west')", "jet_lag_days(3, 'east')",
            "jet_lag_days(3, 'west')", "jet_lag_days(5, 'west')", "jet_lag_days(6, 'west')",
            "jet_lag_days(8, 'east')", "jet_lag_days(9, 'west')", "jet_lag_days(10, 'west')",
            "jet_lag_days(12, 'east')",
        ],
        hidden="""The direction is 'east' or 'west'. Crossing 2 time zones or fewer gives me no jet lag at
            all, so 0 days. Flying east, I need one day per time zone crossed. Flying west is easier: one
            day for every 1.5 time zones, rounded up to a whole day.""",
        generic='''
            def jet_lag_days(time_zones, direction):
                return time_zones
            ''',
    ),
    _task(
        32,
        description="""When I check in for a flight I want to grab the best free seat quickly. The function
            gets the list of available seats, written like '12A', and returns the one I should pick.""",
        ground_truth='''
            def pick_seat(available_seats):
                kinds = {"A": 0, "F": 0, "C": 1, "D": 1}
                best = None
                for seat in available_seats:
                    row, letter = int(seat[:-1]), seat[-1]
                    if row == 13 or letter not in kinds:
                        continue
                    key = (kinds[letter], row, letter)
                    if best is None or key < best[0]:
                        best = (key, seat)
                return best[1] if best is not None else "none"
            ''',
        tests=[
            "pick_seat(['12C', '14A', '3B'])", "pick_seat(['13A', '13F', '2D'])", "pick_seat(['5B', '7E'])",
            "pick_seat(['20F', '20A'])", "pick_seat(['1C', '30F'])", "pick_seat([])", "pick_seat(['8D', '8C'])",
            "pick_seat(['22F', '4F', '11A'])", "pick_seat(['13C', '15C', '14D'])",
            "pick_seat(['6C', '6B', '6A', '2E'])",
        ],
        hidden="""A seat is the row number followed by a letter. A and F are window seats, C and D are aisle
            seats, and B and E are middle seats. I want a window seat if there is one. If no window seat
            is free, I take an aisle seat. I never take a middle seat. I never sit in row 13. Among seats
            of the same kind I take the lowest row number, closest to the front. If the row is the same
            too, I take the letter that comes first in the alphabet. If no seat is acceptable, return
            'none'.""",
        generic='''
            def pick_seat(available_seats):
                for seat in available_seats:
                    if seat[-1] in "AF":
                        return seat
                return available_seats[0] if available_seats else None
            ''',
    ),
    # ------------------------------------------------------------------ school & grading
    _task(
        33,
        description="""I teach high school and want a function that turns a numeric score out of 100 into a
            letter grade. It should grade exactly the way I do it in my class.""",
        ground_truth='''
            def letter_grade(score):
                score = int(score + 0.5)
                if score >= 93:
                    return "A"
                if score >= 90:
                    return "A-"
                if score >= 87:
                    return "B+"
                if score >= 83:
                    return "B"
                if score >= 80:
                    return "B-"
                if score >= 70:
                    return "C"
                if score >= 60:
                    return "D"
                return "F"
            ''',
        tests=[
            "letter_grade(95)", "letter_grade(92.4)", "letter_grade(92.5)", "letter_grade(89)",
            "letter_grade(86.5)", "letter_grade(83)", "letter_grade(81.7)", "letter_grade(79.5)",
            "letter_grade(65)", "letter_grade(59.4)",
        ],
        hidden="""First I round the score to a whole number, and a half point always rounds up, so 84.5
            becomes 85. A rounded score of 93 and above gets the grade 'A'. A score of 90 to 92 gets the
            grade 'A-'. A score of 87 to 89 gets the grade 'B+'. A score of 83 to 86 gets the grade 'B'.
            A score of 80 to 82 gets the grade 'B-'. A score of 70 to 79 gets the grade 'C', with no plus
            or minus. A score of 60 to 69 gets the grade 'D'. Any score below 60 gets the grade 'F'.""",
        generic='''
            def letter_grade(score):
                if score >= 90:
                    return "A"
                if score >= 80:
                    return "B"
                if score >= 70:
                    return "C"
                if score >= 60:
                    return "D"
                return "F"
            ''',
    ),
    _task(
        34,
        description="""My last test was too hard and I want to curve the scores. Write a function that takes
            the list of scores out of 100 and returns the curved scores in the same order.""",
        ground_truth='''
            def curve_scores(scores):
                if not scores:
                    return []
                bonus = min(100 - max(scores), 10)
                return [score + bonus for score in scores]
            ''',
        tests=[
            "curve_scores([70, 80, 90])", "curve_scores([50, 60, 85])", "curve_scores([100, 40])",
            "curve_scores([])", "curve_scores([95])", "curve_scores([88, 72, 91, 64])",
            "curve_scores([30, 45, 52])", "curve_scores([99, 98])", "curve_scores([60, 60, 60])",
            "curve_scores([92.5, 80])",
        ],
        hidden="""The curve adds the same number of points to everyone's score. The bonus is how far the top
            score is below 100. The bonus is capped at 10 points. An empty list gives back an empty
            list.""",
        generic='''
            def curve_scores(scores):
                top = max(scores)
                return [round(score * 100 / top) for score in scores]
            ''',
    ),
    _task(
        35,
        description="""I need to compute my students' course averages. The function gets three lists of scores
            out of 100, one each for homework, quizzes and exams, and returns the overall average.""",
        ground_truth='''
            def course_average(homework, quizzes, exams):
                if len(quizzes) >= 3:
                    quizzes = sorted(quizzes)[1:]
                total = 0.0
                weight = 0.0
                for scores, w in ((homework, 0.2), (quizzes, 0.3), (exams, 0.5)):
                    if scores:
                        total += sum(scores) / len(scores) * w
                        weight += w
                if weight == 0:
                    return 0.0
                return round(total / weight, 2)
            ''',
        tests=[
            "course_average([90, 80], [70, 85, 95], [88])", "course_average([100], [50, 60], [70, 80])",
            "course_average([], [80, 90, 100], [85])", "course_average([75, 85, 95], [], [])",
            "course_average([], [], [])", "course_average([88], [60, 70, 80, 90], [77, 83])",
            "course_average([100, 90], [40, 100, 100], [60])", "course_average([50], [90], [])",
            "course_average([92, 87, 78], [65, 72], [81, 90, 69])", "course_average([0], [0, 0, 100], [100])",
        ],
        hidden="""Homework is worth 20 percent, quizzes 30 percent and exams 50 percent. Within a category all
            scores count equally, as a plain average. If there are at least 3 quizzes, I drop the lowest
            quiz score. If a category has no scores yet, it is left out and the other weights are scaled
            up so they still add up to 100 percent. With no scores at all, return 0.0. The result is
            rounded to 2 decimals.""",
        generic='''
            def course_average(homework, quizzes, exams):
                scores = homework + quizzes + exams
                if not scores:
                    return 0.0
                return round(sum(scores) / len(scores), 2)
            ''',
    ),
    _task(
        36,
        description="""Students keep handing in work late and I want to apply my late policy consistently.
            Write a function that takes the score an assignment earned and how many days late it was,
            and returns the score to record.""",
        ground_truth='''
            def late_penalty(score, days_late):
                if days_late <= 0:
                    return score
                if days_late > 5:
                    return 0
                return max(0, score - 10 * days_late)
            ''',
        tests=[
            "late_penalty(95, 0)", "late_penalty(95, 1)", "late_penalty(80, 3)", "late_penalty(100, 5)",
            "late_penalty(100, 6)", "late_penalty(25, 4)", "late_penalty(72, 2)", "late_penalty(60, -1)",
            "late_penalty(88, 5)", "late_penalty(15, 1)",
        ],
        hidden="""Work handed in on time or early keeps its full score. Each day late takes off 10 points,
            not 10 percent. Work more than 5 days late gets a 0. The score never goes below 0.""",
        generic='''
            def late_penalty(score, days_late):
                if days_late <= 0:
                    return score
                return max(0, round(score * (1 - 0.1 * days_late)))
            ''',
    ),
    _task(
        37,
        description="""At the end of each term I label every student's attendance. I want a function that
            takes the number of absences and the number of times they were tardy and returns the
            attendance status.""",
        ground_truth='''
            def attendance_status(absences, tardies):
                total = absences + tardies // 3
                if total == 0:
                    return "perfect"
                if total <= 3:
                    return "good"
                if total <= 6:
                    return "warning"
                return "failing"
            ''',
        tests=[
            "attendance_status(0, 0)", "attendance_status(0, 2)", "attendance_status(0, 3)",
            "attendance_status(3, 2)", "attendance_status(3, 3)", "attendance_status(5, 5)",
            "attendance_status(6, 3)", "attendance_status(10, 0)", "attendance_status(2, 6)",
            "attendance_status(1, 0)",
        ],
        hidden="""Every 3 tardies count as one absence, and leftover tardies don't count. With 0 absences
            in total the status is 'perfect'. 1 to 3 absences in total is 'good'. 4 to 6 absences in total
            is 'warning'. 7 or more absences in total is 'failing'.""",
        generic='''
            def attendance_status(absences, tardies):
                total = absences + tardies * 0.5
                if total <= 2:
                    return "good"
                if total <= 5:
                    return "warning"
                return "poor"
            ''',
    ),
    _task(
        38,
        description="""I'm planning my study time before exams. The function gets a dict of my subjects with a
            difficulty rating from 1 to 5 and the total hours I have, and returns how many hours to
            spend on each subject.""",
        ground_truth='''
            def study_plan(subjects, hours):
                plan = {name: 0.5 for name, difficulty in subjects.items() if difficulty == 1}
                rest = {name: difficulty for name, difficulty in subjects.items() if difficulty != 1}
                remaining = hours - 0.5 * len(plan)
                total = sum(rest.values())
                for name, difficulty in rest.items():
                    plan[name] = round(remaining * difficulty / total * 2) / 2
                return plan
            ''',
        tests=[
            "study_plan({'math': 4, 'history': 2}, 6)",
            "study_plan({'math': 5, 'art': 1, 'biology': 3}, 8.5)",
            "study_plan({'physics': 3, 'chemistry': 3, 'music': 1, 'gym': 1}, 7)",
            "study_plan({'french': 2, 'spanish': 5}, 5)",
            "study_plan({'coding': 4}, 3)",
            "study_plan({'a': 2, 'b': 3, 'c': 4}, 10)",
            "study_plan({'reading': 1}, 2)",
            "study_plan({'econ': 5, 'stats': 4, 'ethics': 1}, 4.5)",
            "study_plan({'x': 3, 'y': 2}, 2)",
            "study_plan({'geo': 2, 'lit': 3, 'art': 1, 'bio': 5}, 12.5)",
        ],
        hidden="""Any subject rated 1 just gets a fixed half hour. The remaining hours are shared among the
            other subjects in proportion to their difficulty rating. Each subject's time is rounded to
            the nearest half hour. The result is a dict of subject name to hours.""",
        generic='''
            def study_plan(subjects, hours):
                if not subjects:
                    return {}
                share = round(hours / len(subjects), 2)
                return {name: share for name in subjects}
            ''',
    ),
    _task(
        39,
        description="""I split my class into project groups a lot and want a function to do it. It gets the
            list of student names and the group size I want and returns the groups as a list of lists
            of names.""",
        ground_truth='''
            def make_groups(names, group_size):
                ordered = sorted(names)
                groups = [ordered[i:i + group_size] for i in range(0, len(ordered), group_size)]
                if len(groups) > 1 and len(groups[-1]) == 1:
                    groups[-2].extend(groups.pop())
                return groups
            ''',
        tests=[
            "make_groups(['Eve', 'Bob', 'Amy', 'Dan', 'Cat', 'Fay'], 3)",
            "make_groups(['Eve', 'Bob', 'Amy', 'Dan', 'Cat'], 2)",
            "make_groups(['Zed', 'Ann', 'Lou', 'Kim', 'Joe'], 3)",
            "make_groups(['Solo'], 3)",
            "make_groups([], 4)",
            "make_groups(['d', 'c', 'b', 'a', 'e', 'f', 'g'], 3)",
            "make_groups(['Max', 'Ada'], 5)",
            "make_groups(['Tom', 'Sam', 'Ria', 'Pat', 'Oli', 'Nia', 'Mo', 'Lee', 'Kai'], 4)",
            "make_groups(['b', 'a', 'c', 'd'], 2)",
            "make_groups(['Liam', 'Emma', 'Noah', 'Olivia', 'Ava', 'Mia', 'Zoe', 'Ivy', 'Leo', 'Kai'], 3)",
        ],
        hidden="""I sort the students alphabetically by name first. Then I fill groups of the given size in
            that order. If the last group would have just one person, that person joins the group
            before it instead. A smaller last group with two or more people is fine.""",
        generic='''
            def make_groups(names, group_size):
                return [names[i:i + group_size] for i in range(0, len(names), group_size)]
            ''',
    ),
    _task(
        40,
        description="""I want to calculate my GPA from my transcript. The function takes a list of courses,
            each a pair of my letter grade and the course credits, and returns my GPA.""",
        ground_truth='''
            def gpa(courses):
                base = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0, "F": 0.0}
                points = 0.0
                credits_total = 0
                for grade, credits in courses:
                    if credits <= 0:
                        continue
                    value = base[grade[0]]
                    if grade.endswith("+") and grade[0] != "A":
                        value += 0.3
                    elif grade.endswith("-"):
                        value -= 0.3
                    points += value * credits
                    credits_total += credits
                if credits_total == 0:
                    return 0.0
                return round(points / credits_total, 2)
            ''',
        tests=[
            "gpa([['A', 3], ['B', 4]])", "gpa([['A+', 3], ['A', 3]])", "gpa([['B+', 3], ['C-', 2]])",
            "gpa([['A-', 4], ['B', 0]])", "gpa([])", "gpa([['F', 3], ['D+', 3]])", "gpa([['A', 1], ['C', 5]])",
            "gpa([['B-', 3], ['B+', 3], ['A+', 2]])", "gpa([['C', 0]])",
            "gpa([['A-', 3], ['B-', 4], ['D', 2], ['A', 1]])",
        ],
        hidden="""An A is worth 4 points, B 3, C 2, D 1 and F 0. A plus adds 0.3 and a minus takes off 0.3.
            An A+ still only counts as 4.0. The GPA is weighted by credits. Courses with 0 credits are
            ignored. If there are no credits at all, return 0.0. The GPA is rounded to 2 decimals.""",
        generic='''
            def gpa(courses):
                scale = {"A+": 4.3, "A": 4.0, "A-": 3.7, "B+": 3.3, "B": 3.0, "B-": 2.7, "C+": 2.3,
                         "C": 2.0, "C-": 1.7, "D+": 1.3, "D": 1.0, "D-": 0.7, "F": 0.0}
                if not courses:
                    return 0.0
                return round(sum(scale.get(grade, 0.0) for grade, _ in courses) / len(courses), 2)
            ''',
    ),
    # ------------------------------------------------------------------ pets & gardening
    _task(
        41,
        description="""I have a lot of house plants and can never remember when to water them. Write a function
            that takes the kind of plant and today's temperature in Celsius and returns how many days
            to wait between waterings.""",
        ground_truth='''
            def watering_interval(plant_type, temperature_c):
                days = {"succulent": 14, "fern": 3, "herb": 2}.get(plant_type, 7)
                if temperature_c > 30:
                    days = max(1, days // 2)
                elif temperature_c < 10:
                    days *= 2
                return days
            ''',
        tests=[
            "watering_interval('succulent', 20)", "watering_interval('fern', 35)",
            "watering_interval('herb', 31)", "watering_interval('cactus', 25)",
            "watering_interval('succulent', 32)", "watering_interval('fern', 5)",
            "watering_interval('rose', 30)", "watering_interval('herb', 10)",
            "watering_interval('orchid', -2)", "watering_interval('succulent', 9)",
        ],
        hidden="""Succulents get watered every 14 days. Ferns get watered every 3 days. Herbs get watered
            every 2 days. Any other plant gets watered every 7 days. When it's hotter than 30 degrees, I
            halve the interval, rounding down, but never below 1 day. When it's colder than 10 degrees, I
            double the interval.""",
        generic='''
            def watering_interval(plant_type, temperature_c):
                days = {"succulent": 10, "cactus": 14, "fern": 4, "herb": 3}.get(plant_type, 7)
                if temperature_c > 25:
                    days = max(1, days - 1)
                return days
            ''',
    ),
    _task(
        42,
        description="""I want to make sure I'm feeding my pets the right amount. The function gets the pet's
            weight in kilograms, its age in years and whether it's a dog or a cat, and returns how much
            food to put in the bowl.""",
        ground_truth='''
            def pet_food_portion(weight_kg, age_years, species):
                daily = weight_kg * (20 if species == "dog" else 15)
                if age_years < 1:
                    daily *= 2
                elif age_years >= 8:
                    daily *= 0.8
                return round(daily / 2)
            ''',
        tests=[
            "pet_food_portion(10, 3, 'dog')", "pet_food_portion(4, 5, 'cat')", "pet_food_portion(5, 0.5, 'dog')",
            "pet_food_portion(3, 0.25, 'cat')", "pet_food_portion(20, 9, 'dog')", "pet_food_portion(6, 12, 'cat')",
            "pet_food_portion(12.5, 8, 'dog')", "pet_food_portion(7.3, 2, 'cat')",
            "pet_food_portion(2.2, 0.8, 'dog')", "pet_food_portion(33, 7, 'dog')",
        ],
        hidden="""The species is 'dog' or 'cat'. Dogs get 20 grams of food per kilogram of body weight per
            day. Cats get 15 grams per kilogram per day. Puppies and kittens younger than 1 year get
            double. Seniors aged 8 years or older get 20 percent less. The daily amount is split into two
            equal meals. The function returns the grams for one meal, rounded to a whole number.""",
        generic='''
            def pet_food_portion(weight_kg, age_years, species):
                per_kg = 25 if species == "dog" else 20
                return round(weight_kg * per_kg)
            ''',
    ),
    _task(
        43,
        description="""I walk my dog every day and the right length depends on the dog and the weather. Write
            a function that takes the dog's size and the temperature in Celsius and returns how many
            minutes the walk should be.""",
        ground_truth='''
            def walk_minutes(dog_size, temperature_c):
                minutes = {"small": 20, "medium": 40, "large": 60}[dog_size]
                if temperature_c > 28:
                    return minutes // 2
                if temperature_c < 0 and dog_size == "small":
                    return 10
                return minutes
            ''',
        tests=[
            "walk_minutes('small', 15)", "walk_minutes('medium', 15)", "walk_minutes('large', 20)",
            "walk_minutes('large', 30)", "walk_minutes('small', 29)", "walk_minutes('medium', 28)",
            "walk_minutes('small', -5)", "walk_minutes('large', -10)", "walk_minutes('medium', -1)",
            "walk_minutes('small', 0)",
        ],
        hidden="""The size is 'small', 'medium' or 'large'. A small dog gets a 20 minute walk, a medium dog
            40 minutes and a large dog 60 minutes. When it's hotter than 28 degrees, every walk is cut in
            half. When it's below freezing, under 0 degrees, small dogs only go out for 10 minutes.
            Bigger dogs walk as normal in the cold.""",
        generic='''
            def walk_minutes(dog_size, temperature_c):
                minutes = {"small": 30, "medium": 45, "large": 60}.get(dog_size, 30)
                if temperature_c > 30:
                    minutes //= 2
                return minutes
            ''',
    ),
    _task(
        44,
        description="""I'm planning my vegetable beds. Write a function that takes the length of a row in
            centimeters and the vegetable I want to plant, and returns how many plants fit in that
            row.""",
        ground_truth='''
            def plants_per_row(row_length_cm, plant):
                spacing = {"tomato": 60, "pepper": 45, "lettuce": 25, "carrot": 5}.get(plant, 30)
                usable = row_length_cm - 20
                if usable < 0:
                    return 0
                return int(usable // spacing) + 1
            ''',
        tests=[
            "plants_per_row(200, 'tomato')", "plants_per_row(100, 'lettuce')", "plants_per_row(50, 'carrot')",
            "plants_per_row(15, 'tomato')", "plants_per_row(20, 'pepper')", "plants_per_row(300, 'pepper')",
            "plants_per_row(120, 'beans')", "plants_per_row(61.5, 'lettuce')", "plants_per_row(500, 'carrot')",
            "plants_per_row(79, 'tomato')",
        ],
        hidden="""Tomatoes need 60 cm of spacing between plants. Peppers need 45 cm of spacing between plants.
            Lettuce needs 25 cm of spacing between plants. Carrots need 5 cm of spacing between plants.
            Any other plant gets 30 cm of spacing. I keep 10 cm free at each end of the row. The first plant goes
            right at the start of the free space, then one plant every spacing distance, as long as it
            stays out of the 10 cm at the end. If the row is shorter than 20 cm, nothing fits and the
            answer is 0.""",
        generic='''
            def plants_per_row(row_length_cm, plant):
                spacing = {"tomato": 45, "pepper": 40, "lettuce": 20, "carrot": 5}.get(plant, 30)
                return int(row_length_cm // spacing)
            ''',
    ),
    _task(
        45,
        description="""I'm buying fertilizer for my lawn this spring and want to know how much to get. The
            function takes the lawn area in square meters and what condition the lawn is in.""",
        ground_truth='''
            def fertilizer_bags(area_m2, lawn_condition):
                import math
                grams = area_m2 * {"poor": 40, "average": 25, "good": 15}[lawn_condition]
                return max(1, math.ceil(grams / 2000))
            ''',
        tests=[
            "fertilizer_bags(100, 'poor')", "fertilizer_bags(100, 'average')", "fertilizer_bags(50, 'good')",
            "fertilizer_bags(0, 'poor')", "fertilizer_bags(250, 'good')", "fertilizer_bags(1000, 'poor')",
            "fertilizer_bags(333, 'average')", "fertilizer_bags(10, 'average')", "fertilizer_bags(160, 'good')",
            "fertilizer_bags(420, 'poor')",
        ],
        hidden="""The lawn condition is 'poor', 'average' or 'good'. A poor lawn needs 40 grams of fertilizer
            per square meter. An average lawn needs 25 grams per square meter. A good lawn needs 15 grams
            per square meter. Fertilizer comes in 2 kilogram bags, and I can only buy whole bags, so
            round up. I always buy at least one bag. The function returns the number of bags.""",
        generic='''
            def fertilizer_bags(area_m2, lawn_condition):
                grams_per_m2 = {"poor": 35, "average": 30, "good": 20}.get(lawn_condition, 30)
                return round(area_m2 * grams_per_m2 / 1000, 2)
            ''',
    ),
    _task(
        46,
        description="""I keep an aquarium and don't want to overcrowd it. Write a function that takes the tank
            size in liters and the list of lengths of the fish already in it, in centimeters, and tells
            me how much more fish I can add.""",
        ground_truth='''
            def fish_room_left(tank_liters, fish_lengths_cm):
                capacity = tank_liters * 0.8 / 2
                left = capacity - sum(fish_lengths_cm)
                return max(0, int(left))
            ''',
        tests=[
            "fish_room_left(100, [5, 5, 10])", "fish_room_left(60, [])", "fish_room_left(50, [10, 10])",
            "fish_room_left(40, [12, 8])", "fish_room_left(200, [7.5, 7.5, 12])", "fish_room_left(75, [4, 4, 4])",
            "fish_room_left(120, [15, 2.5])", "fish_room_left(35, [3])", "fish_room_left(250, [20, 20, 20, 20])",
            "fish_room_left(90, [6.5])",
        ],
        hidden="""I follow the rule of 1 centimeter of adult fish per 2 liters of water. Only 80 percent of
            the tank's volume counts as water, because of the gravel and decorations. The function
            returns how many more centimeters of fish I can add. It is rounded down to a whole
            centimeter. If the tank is already full or overstocked, return 0.""",
        generic='''
            def fish_room_left(tank_liters, fish_lengths_cm):
                return max(0, tank_liters - sum(fish_lengths_cm))
            ''',
    ),
    _task(
        47,
        description="""I want to know when the vegetables in my garden will be ready to pick. The function
            gets the plant name and how many days ago I planted it, and returns its harvest status.""",
        ground_truth='''
            def harvest_status(plant, days_since_planting):
                needed = {"tomato": 75, "zucchini": 50, "lettuce": 30, "beans": 55}.get(plant, 60)
                if days_since_planting >= needed:
                    return "ready"
                if needed - days_since_planting <= 7:
                    return "soon"
                return "not yet"
            ''',
        tests=[
            "harvest_status('tomato', 80)", "harvest_status('tomato', 68)", "harvest_status('tomato', 67)",
            "harvest_status('lettuce', 30)", "harvest_status('lettuce', 25)", "harvest_status('zucchini', 10)",
            "harvest_status('beans', 48)", "harvest_status('beans', 55)", "harvest_status('pumpkin', 59)",
            "harvest_status('pumpkin', 40)",
        ],
        hidden="""Tomatoes take 75 days from planting to harvest. Zucchini take 50 days from planting to harvest.
            Lettuce takes 30 days from planting to harvest. Beans take 55 days from planting to harvest.
            Any other plant takes 60 days from planting to harvest. Once that many days have passed, the answer is
            'ready'. If it is 7 days away or less, the answer is 'soon'. Otherwise the answer is 'not
            yet'.""",
        generic='''
            def harvest_status(plant, days_since_planting):
                needed = {"tomato": 70, "zucchini": 60, "lettuce": 45, "beans": 60}.get(plant, 60)
                return "ready" if days_since_planting >= needed else "not ready"
            ''',
    ),
    _task(
        48,
        description="""My kids always ask how old our pets are in human years. Write a function that takes the
            pet's age and what kind of animal it is and returns the age in human years.""",
        ground_truth='''
            def pet_human_age(age, species):
                if species not in ("dog", "cat"):
                    return age * 7
                if age <= 0:
                    return 0
                if age == 1:
                    return 15
                return 24 + (age - 2) * (5 if species == "dog" else 4)
            ''',
        tests=[
            "pet_human_age(1, 'dog')", "pet_human_age(2, 'cat')", "pet_human_age(3, 'dog')",
            "pet_human_age(3, 'cat')", "pet_human_age(10, 'dog')", "pet_human_age(10, 'cat')",
            "pet_human_age(0, 'dog')", "pet_human_age(5, 'rabbit')", "pet_human_age(15, 'cat')",
            "pet_human_age(7, 'hamster')",
        ],
        hidden="""Ages are whole years. For dogs and cats, the first year equals 15 human years. The second
            year adds 9 more, so a 2 year old is 24. Each year after that adds 5 human years for a dog
            and 4 for a cat. For any other animal I just multiply the age by 7. An age of 0 years is 0 human years.""",
        generic='''
            def pet_human_age(age, species):
                return age * 7
            ''',
    ),
    # ------------------------------------------------------------------ games & scoring
    _task(
        49,
        description="""We play a dice game at home with our own scoring table. I want a function that takes a
            roll of dice as a list of numbers and returns the score for that roll.""",
        ground_truth='''
            def dice_score(dice):
                values = set(dice)
                counts = sorted((dice.count(v) for v in values), reverse=True)
                if counts[0] == 5:
                    return 50
                if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
                    return 40
                if counts[0] == 4:
                    return 35
                if counts[:2] == [3, 2]:
                    return 25
                for run in ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}):
                    if run <= values:
                        return 20
                if counts[0] == 3:
                    return sum(dice)
                return 0
            ''',
        tests=[
            "dice_score([6, 6, 6, 6, 6])", "dice_score([2, 3, 4, 5, 6])", "dice_score([3, 3, 3, 3, 1])",
            "dice_score([2, 2, 5, 5, 5])", "dice_score([1, 2, 3, 4, 6])", "dice_score([6, 6, 6, 5, 5])",
            "dice_score([1, 1, 2, 5, 6])", "dice_score([6, 6, 6, 2, 3])", "dice_score([3, 4, 5, 6, 6])",
            "dice_score([5, 1, 4, 3, 2])",
        ],
        hidden="""A roll is always 5 dice. I check the patterns in this order and score the first one that
            matches. Five of a kind scores 50. A large straight, five dice in a row like 1-2-3-4-5 or
            2-3-4-5-6, scores 40. Four of a kind scores 35. A full house, three of one number and two of
            another, scores 25. A small straight, four dice in a row, scores 20. Three of a kind scores
            the sum of all five dice. Anything else scores 0.""",
        generic='''
            def dice_score(dice):
                return sum(dice)
            ''',
    ),
    _task(
        50,
        description="""My friends and I play a word game with our own letter values. Write a function that
            takes a word and returns how many points it scores.""",
        ground_truth='''
            def word_points(word):
                score = 0
                letters = 0
                for ch in word.lower():
                    if not ch.isalpha():
                        continue
                    letters += 1
                    if ch in "aeiou":
                        score += 1
                    elif ch in "qxzj":
                        score += 8
                    else:
                        score += 2
                if letters >= 7:
                    score += 20
                return score
            ''',
        tests=[
            "word_points('cat')", "word_points('Quiz')", "word_points('banana')", "word_points('jukebox')",
            "word_points('sky')", "word_points('')", "word_points('well-done')", "word_points('AEIOU')",
            "word_points('pizza')", "word_points('Rhythms')",
        ],
        hidden="""Upper and lower case letters score the same. The vowels a, e, i, o and u are worth 1 point
            each. The letters q, x, z and j are worth 8 points each. Every other letter is worth 2
            points. Anything that isn't a letter, like a hyphen or a space, is worth 0. A word with 7 or
            more letters gets a 20 point bonus.""",
        generic='''
            def word_points(word):
                values = {}
                for letters, points in (("aeioulnstr", 1), ("dg", 2), ("bcmp", 3), ("fhvwy", 4), ("k", 5),
                                        ("jx", 8), ("qz", 10)):
                    for letter in letters:
                        values[letter] = points
                return sum(values.get(ch, 0) for ch in word.lower())
            ''',
    ),
    _task(
        51,
        description="""I run a weekly game night and keep a leaderboard. The function gets a dict mapping each
            player to the list of their game scores and returns the player names in leaderboard
            order.""",
        ground_truth='''
            def leaderboard(scores):
                totals = {name: sum(sorted(games, reverse=True)[:3]) for name, games in scores.items()}
                return sorted(totals, key=lambda name: (-totals[name], name))
            ''',
        tests=[
            "leaderboard({'ann': [10, 20, 30, 5], 'bob': [25, 25, 12]})",
            "leaderboard({'zed': [50], 'amy': [20, 30]})",
            "leaderboard({})",
            "leaderboard({'kim': [9, 9, 9, 9, 9], 'lee': [10, 10, 10]})",
            "leaderboard({'solo': [1, 2, 3]})",
            "leaderboard({'a': [100, 0, 0, 0], 'b': [40, 40, 40, 40], 'c': [60, 30]})",
            "leaderboard({'max': [], 'mia': [5]})",
            "leaderboard({'p3': [24], 'p2': [9, 8, 7], 'p1': [7, 8, 9]})",
            "leaderboard({'x': [3, 1, 4, 1, 5, 9, 2, 6], 'y': [9, 6, 5, 5]})",
            "leaderboard({'dan': [12, 15, 1, 1], 'cal': [28]})",
        ],
        hidden="""A player's total is the sum of their best 3 games only. Players with fewer than 3 games
            just add up what they have. The leaderboard is sorted by total, highest first. Ties are
            broken alphabetically by name. The function returns the list of names in that order.""",
        generic='''
            def leaderboard(scores):
                return sorted(scores, key=lambda name: sum(scores[name]), reverse=True)
            ''',
    ),
    _task(
        52,
        description="""We play blackjack at home with a house rule or two. Write a function that takes a hand
            as a list of cards and returns the value of the hand.""",
        ground_truth='''
            def hand_value(cards):
                total = 0
                aces = 0
                for card in cards:
                    if card == "A":
                        aces += 1
                        total += 11
                    elif card in ("K", "Q", "J"):
                        total += 10
                    else:
                        total += int(card)
                while total > 21 and aces:
                    total -= 10
                    aces -= 1
                if total > 21:
                    return 0
                if len(cards) >= 5:
                    return 21
                return total
            ''',
        tests=[
            "hand_value(['K', '7'])", "hand_value(['A', 'K'])", "hand_value(['A', 'A'])",
            "hand_value(['K', 'Q', '5'])", "hand_value(['2', '3', '4', '5', 'A'])",
            "hand_value(['10', '9', '2', 'A'])", "hand_value(['A', 'A', 'A', 'A', 'K'])",
            "hand_value(['5', '5', '5', '5', '5'])", "hand_value(['9', 'A'])", "hand_value(['2', '2'])",
        ],
        hidden="""Cards are strings: 'A', 'K', 'Q', 'J' or a number like '7' or '10'. Face cards are worth
            10. An ace is worth 11 unless that would bust the hand, and then it's worth 1. A hand over 21
            is a bust and its value is 0. In our house rules, a hand of 5 or more cards that hasn't
            busted counts as 21.""",
        generic='''
            def hand_value(cards):
                total = 0
                aces = 0
                for card in cards:
                    if card == "A":
                        aces += 1
                        total += 11
                    elif card in ("K", "Q", "J"):
                        total += 10
                    else:
                        total += int(card)
                while total > 21 and aces:
                    total -= 10
                    aces -= 1
                return total
            ''',
    ),
    _task(
        53,
        description="""I host a trivia night and want to score each team's round automatically. The function
            gets a list of answers, each a pair of whether the answer was correct and how many seconds
            it took, and returns the team's score.""",
        ground_truth='''
            def trivia_score(answers):
                score = 0
                streak = 0
                for correct, seconds in answers:
                    if seconds > 30:
                        streak = 0
                        continue
                    if correct:
                        score += 10
                        if seconds <= 5:
                            score += 5
                        streak += 1
                        if streak % 3 == 0:
                            score += 10
                    else:
                        score -= 3
                        streak = 0
                return score
            ''',
        tests=[
            "trivia_score([[True, 10], [True, 3], [False, 8]])",
            "trivia_score([[True, 10], [True, 10], [True, 10]])",
            "trivia_score([])",
            "trivia_score([[False, 2], [False, 40]])",
            "trivia_score([[True, 31], [True, 4]])",
            "trivia_score([[True, 1], [True, 2], [True, 3], [True, 4], [True, 5], [True, 6]])",
            "trivia_score([[True, 12], [True, 12], [False, 12], [True, 12], [True, 12], [True, 12]])",
            "trivia_score([[True, 20], [True, 20], [True, 35], [True, 20]])",
            "trivia_score([[False, 1], [False, 1], [False, 1]])",
            "trivia_score([[True, 5], [True, 30], [True, 6]])",
        ],
        hidden="""A correct answer is worth 10 points. Answering correctly in 5 seconds or less earns 5 bonus
            points. A wrong answer costs 3 points, and the score can go negative. An answer that took
            more than 30 seconds timed out and scores nothing, right or wrong. Every third correct answer
            in a row earns an extra 10 points. A wrong answer or a timed-out answer breaks the streak.""",
        generic='''
            def trivia_score(answers):
                return sum(10 for correct, _ in answers if correct)
            ''',
    ),
    _task(
        54,
        description="""We play a simple dice game where everyone rolls a few times and the best total wins. I
            want a function that takes a dict of each player's rolls and returns who won.""",
        ground_truth='''
            def dice_winner(rolls):
                totals = {}
                for name, values in rolls.items():
                    if values.count(1) >= 2:
                        totals[name] = 0
                    else:
                        totals[name] = sum(v * 2 if v == 6 else v for v in values)
                best = max(totals.values())
                leaders = [name for name, total in totals.items() if total == best]
                return leaders[0] if len(leaders) == 1 else "tie"
            ''',
        tests=[
            "dice_winner({'ann': [6, 2, 3], 'bob': [5, 5, 5]})",
            "dice_winner({'ann': [1, 1, 6], 'bob': [2, 2]})",
            "dice_winner({'a': [3, 3], 'b': [6]})",
            "dice_winner({'x': [4, 4, 4], 'y': [2, 6]})",
            "dice_winner({'p': [5, 5], 'q': [4, 6]})",
            "dice_winner({'p': [6, 1], 'q': [5, 5, 3]})",
            "dice_winner({'solo': [1, 1, 1]})",
            "dice_winner({'m': [1, 2, 3, 5], 'n': [6]})",
            "dice_winner({'a': [2, 2, 2], 'b': [3, 3], 'c': [1, 5]})",
            "dice_winner({'k': [6, 6], 'l': [5, 5, 5, 5, 5], 'j': [1, 1, 6, 6, 6]})",
        ],
        hidden="""Every 6 rolled counts double, so it's worth 12. A player who rolled two or more 1s gets a
            total of 0. The player with the highest total wins, and the function returns their name. If
            two or more players share the highest total, the answer is 'tie'.""",
        generic='''
            def dice_winner(rolls):
                return max(rolls, key=lambda name: sum(rolls[name]))
            ''',
    ),
    _task(
        55,
        description="""Our golf group plays for points instead of counting strokes, using our own point table.
            Write a function that takes the number of strokes I took on a hole and the hole's par, and
            returns my points for that hole.""",
        ground_truth='''
            def golf_points(strokes, par):
                if strokes == 1:
                    return 10
                diff = strokes - par
                if diff <= -2:
                    return 6
                if diff == -1:
                    return 4
                if diff == 0:
                    return 2
                if diff == 1:
                    return 1
                return 0
            ''',
        tests=[
            "golf_points(4, 4)", "golf_points(3, 4)", "golf_points(2, 4)", "golf_points(5, 4)",
            "golf_points(7, 4)", "golf_points(1, 3)", "golf_points(2, 5)", "golf_points(6, 5)",
            "golf_points(4, 3)", "golf_points(1, 4)",
        ],
        hidden="""Par is worth 2 points. A birdie, one under par, is worth 4 points. An eagle or anything
            better, two or more under par, is worth 6 points. A bogey, one over par, is worth 1 point. A
            double bogey or worse is worth 0 points. A hole in one is always worth 10 points, whatever
            the par.""",
        generic='''
            def golf_points(strokes, par):
                return max(0, 2 + par - strokes)
            ''',
    ),
]
"""The 55 part-A tasks, in id order (``a001`` ... ``a055``)."""


def render_jsonl(tasks: Sequence[dict] = TASKS) -> str:
    """The jsonl text of ``tasks``: one JSON object per line, keys in authoring order, UTF-8."""
    return jsonl_text(tasks)


def write_jsonl(path: str | Path | None = DEFAULT_PATH, tasks: Sequence[dict] = TASKS) -> Path:
    """Write ``tasks`` to ``path`` (default: the packaged file) and return the path."""
    return write_text(DEFAULT_PATH if path is None else path, render_jsonl(tasks))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m colbench_env.data.authoring.backend_a [PATH]`` (default: packaged file)."""
    return write_cli(argv, prog=__name__, write=write_jsonl, count=len(TASKS))


if __name__ == "__main__":
    raise SystemExit(main())
