"""The embedded default ColBench backend tasks, part B, authored by hand.

Themes: small business and retail operations, office and productivity, text processing, data
cleaning, sports and clubs, events and venues, weather and energy, library and media, logistics.

Each entry of :data:`TASKS` is an official ColBench backend record plus our fields::

    {"task_id": "b001", "split": "train" | "test",
     "problem_description": str,   # vague first-person request; ends with the signature sentence
     "ground_truth": str,          # the personalised function (pure, deterministic, stdlib only)
     "test_cases": {"test1": "f(...)", ..., "test10": "f(...)"},
     "hidden_information": str,    # what the human knows, in plain words, one fact per sentence
     "generic_solution": str}      # what an agent writes without asking; fails some tests

The description never reveals the personal parameters (thresholds, rates, orderings, rounding,
edge cases); the hidden information states every one of them, so that description plus hidden
information determine the ground truth on the tests. Task ``i`` (1-based, in authoring order) gets
the id ``b{i:03d}``; every fifth task (``b005``, ``b010``, ...) is in the ``"test"`` split.

Regenerate the packaged file after editing a task::

    python -m colbench_env.data.authoring.backend_b    # writes colbench_env/data/backend/part_b.jsonl
"""
from __future__ import annotations

from pathlib import Path

from ...records import split_of  # every fifth task (1-based) is test
from . import SIGNATURE_SENTENCE, backend_task, jsonl_text, write_cli, write_text

__all__ = ["DEFAULT_PATH", "TASKS", "SIGNATURE_SENTENCE", "task_id", "split_of", "render_jsonl",
           "write_jsonl", "main"]

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "backend" / "part_b.jsonl"
"""Where :func:`write_jsonl` writes by default: part B of the packaged embedded backend set."""


def task_id(index: int) -> str:
    """The id of the ``index``-th task (1-based): ``b001``, ``b002``, ..."""
    return f"b{index:03d}"


def _task(number: int, **fields) -> dict:
    """Task ``number`` (1-based) of part B: :func:`~colbench_env.data.authoring.backend_task`'s record."""
    return backend_task(task_id=task_id(number), split=split_of(number), **fields)


_ALL_GUESTS = ("['Ann Zell', 'Bo Young', 'Cy Xu', 'Di Wu', 'Ed Vance', 'Flo Ueda', 'Gus Tate', "
               "'Hal Soto', 'Ivy Ruiz', 'Jo Quinn', 'Kai Park', 'Lu Ortiz', 'Mo Nash', 'Ned Moss']")
_PRICES_A = [0.30, 0.28, 0.25, 0.20, 0.18, 0.22, 0.30, 0.35, 0.33, 0.30, 0.25, 0.22,
             0.20, 0.21, 0.24, 0.28, 0.34, 0.40, 0.42, 0.38, 0.30, 0.26, 0.24, 0.31]
_PRICES_FLAT = [0.25] * 24
_PRICES_B = [0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.30, 0.30, 0.30, 0.30, 0.30,
             0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.15, 0.15, 0.15, 0.15]

TASKS: list[dict] = [
    # ---------------------------------------------------------------- small business & retail
    _task(  # b001
        1,
        description="""I run a small hardware shop and want a function that tells me how many units of a product to
            reorder. I give it the current stock, the average units sold per day and the supplier's lead time
            in days.""",
        ground_truth="""
            def reorder_quantity(stock, daily_sales, lead_days):
                reorder_point = daily_sales * (lead_days + 3)
                if stock > reorder_point:
                    return 0
                needed = daily_sales * 30 - stock
                if needed <= 0:
                    return 0
                return -(-needed // 12) * 12
            """,
        tests=["reorder_quantity(10, 5, 4)", "reorder_quantity(35, 5, 4)", "reorder_quantity(36, 5, 4)",
         "reorder_quantity(22, 5, 4)", "reorder_quantity(0, 2, 7)", "reorder_quantity(500, 3, 10)",
         "reorder_quantity(12, 1, 10)", "reorder_quantity(40, 4, 5)", "reorder_quantity(100, 10, 7)",
         "reorder_quantity(3, 7, 1)"],
        hidden="""I reorder when the stock is at or below the daily sales times the lead time plus 3 extra safety
            days. When I reorder, I order enough to bring the stock up to 30 days of sales. Orders are placed
            in whole cases of 12 units, so round the reorder quantity up to a multiple of 12. If no reorder is
            needed the quantity is 0.""",
        generic="""
            def reorder_quantity(stock, daily_sales, lead_days):
                reorder_point = daily_sales * lead_days
                if stock > reorder_point:
                    return 0
                return max(daily_sales * 30 - stock, 0)
            """,
    ),
    _task(  # b002
        2,
        description="""I need to work out what I owe a staff member for a single shift at my cafe. I pass the length of
            the shift in hours, their hourly rate and whether the shift fell on a public holiday.""",
        ground_truth="""
            def shift_pay(hours, hourly_rate, is_holiday):
                paid = hours - 0.5 if hours > 5 else hours
                rate = hourly_rate * 2 if is_holiday else hourly_rate
                regular = min(paid, 8)
                overtime = max(paid - 8, 0)
                return round(regular * rate + overtime * rate * 1.5, 2)
            """,
        tests=["shift_pay(4, 20, False)", "shift_pay(6, 20, False)", "shift_pay(5, 18.5, False)",
         "shift_pay(10, 15, False)", "shift_pay(8.5, 16, False)", "shift_pay(4, 20, True)",
         "shift_pay(9, 22, True)", "shift_pay(12, 14.25, False)", "shift_pay(5.5, 19, True)",
         "shift_pay(3, 17.8, True)"],
        hidden="""A 30-minute unpaid break is taken off any shift longer than 5 hours. Paid hours beyond 8 in one
            shift are overtime at 1.5 times the rate. On a public holiday every hour is paid at double the
            rate, and overtime is 1.5 times that doubled rate. Round the pay to 2 decimals.""",
        generic="""
            def shift_pay(hours, hourly_rate, is_holiday):
                rate = hourly_rate * 1.5 if is_holiday else hourly_rate
                regular = min(hours, 8)
                overtime = max(hours - 8, 0)
                return round(regular * rate + overtime * rate * 1.5, 2)
            """,
    ),
    _task(  # b003
        3,
        description="""My little design studio sends invoices and some clients pay late. I want a function that gives the
            late fee to add to an invoice, given the invoice amount and how many days late the payment is.""",
        ground_truth="""
            def invoice_late_fee(amount, days_late):
                import math
                if days_late <= 7:
                    return 0.0
                periods = math.ceil(days_late / 30)
                fee = 25 + amount * 0.02 * periods
                cap = max(25.0, amount * 0.2)
                return round(min(fee, cap), 2)
            """,
        tests=["invoice_late_fee(1000, 5)", "invoice_late_fee(1000, 7)", "invoice_late_fee(1000, 8)",
         "invoice_late_fee(1000, 31)", "invoice_late_fee(2500, 95)", "invoice_late_fee(100, 40)",
         "invoice_late_fee(50, 200)", "invoice_late_fee(480.75, 60)", "invoice_late_fee(12000, 400)",
         "invoice_late_fee(300, 15)"],
        hidden="""There is a 7-day grace period, so 7 days late or less means no fee. After that the fee is a flat
            25 plus 2% of the invoice amount for every started 30-day period late. The fee is capped at 20% of
            the invoice amount, but the cap is never below 25. Round the fee to 2 decimals.""",
        generic="""
            def invoice_late_fee(amount, days_late):
                import math
                if days_late <= 0:
                    return 0.0
                return round(amount * 0.015 * math.ceil(days_late / 30), 2)
            """,
    ),
    _task(  # b004
        4,
        description="""I want a function that works out the shelf price for an item in my corner store from what it cost
            me and its category. I like my prices to look a certain way on the tags.""",
        ground_truth="""
            def price_tag(cost, category):
                import math
                markups = {"food": 0.30, "electronics": 0.15}
                price = round(cost * (1 + markups.get(category.lower(), 0.50)), 2)
                return round(math.ceil(price) - 0.01, 2)
            """,
        tests=["price_tag(3.2, 'food')", "price_tag(10, 'Food')", "price_tag(199, 'electronics')",
         "price_tag(40, 'ELECTRONICS')", "price_tag(7.5, 'toys')", "price_tag(12.34, 'stationery')",
         "price_tag(0.8, 'food')", "price_tag(20, 'garden')", "price_tag(55.55, 'Electronics')",
         "price_tag(1, 'candy')"],
        hidden="""Food items get a 30% markup on cost. Electronics get a 15% markup. Every other category gets a
            50% markup. Category names are matched ignoring upper or lower case. The marked-up price is first
            rounded to cents, then rounded up to the next whole dollar and 1 cent is taken off, so it always
            ends in .99 (a price of exactly 10 becomes 9.99).""",
        generic="""
            def price_tag(cost, category):
                markups = {"food": 0.25, "electronics": 0.20}
                return round(cost * (1 + markups.get(category.lower(), 0.30)), 2)
            """,
    ),
    _task(  # b005 (test)
        5,
        description="""After a stock take I want to compare what the system says I should have with what we actually
            counted, and get a list of the items worth looking into. Both come as dicts from item name to
            quantity, and I want the items back with their differences.""",
        ground_truth="""
            def stock_discrepancies(expected, counted):
                out = []
                for item in set(expected) | set(counted):
                    exp = expected.get(item, 0)
                    diff = counted.get(item, 0) - exp
                    if abs(diff) > max(2, exp * 0.05):
                        out.append((item, diff))
                out.sort(key=lambda p: (-abs(p[1]), p[0]))
                return out
            """,
        tests=["stock_discrepancies({'nails': 100, 'screws': 50}, {'nails': 95, 'screws': 50})",
         "stock_discrepancies({'nails': 100, 'screws': 50}, {'nails': 94, 'screws': 47})",
         "stock_discrepancies({'tape': 10, 'glue': 4}, {'tape': 7, 'glue': 4})",
         "stock_discrepancies({'tape': 10}, {'tape': 10, 'rope': 6})",
         "stock_discrepancies({'a': 3, 'b': 3}, {'a': 0, 'b': 6})",
         "stock_discrepancies({'hinge': 400, 'bolt': 20}, {'hinge': 379, 'bolt': 25})",
         "stock_discrepancies({'hinge': 400, 'bolt': 20}, {'hinge': 380, 'bolt': 17})",
         "stock_discrepancies({'paint': 8}, {})",
         "stock_discrepancies({'x': 1, 'y': 1, 'z': 1}, {'x': 1, 'y': 1, 'z': 1})",
         "stock_discrepancies({'washer': 1000, 'nut': 900, 'pin': 5}, {'washer': 940, 'nut': 960, 'pin': 1})"],
        hidden="""Items missing from one of the two dicts count as 0 there. A difference is only flagged if it is
            more than the tolerance; equal to the tolerance is fine. The tolerance is 2 units or 5% of the
            expected amount, whichever is larger. The difference is counted minus expected, so shortages are
            negative. Return a list of (item, difference) tuples. Order the list by the size of the difference,
            largest first, and break ties alphabetically by item name.""",
        generic="""
            def stock_discrepancies(expected, counted):
                out = []
                for item in sorted(expected):
                    diff = counted.get(item, 0) - expected[item]
                    if diff != 0:
                        out.append((item, diff))
                return out
            """,
    ),
    _task(  # b006
        6,
        description="""At closing time I count the cash drawer and want a function that tells me how much to take to the
            bank. I pass a dict from denomination (as a string like '20' or '0.25') to how many of that note or
            coin I counted.""",
        ground_truth="""
            def cash_to_deposit(counts):
                total = round(sum(float(d) * n for d, n in counts.items()), 2)
                if total <= 200:
                    return 0.0
                return float(int((total - 200) // 5) * 5)
            """,
        tests=["cash_to_deposit({'20': 10})", "cash_to_deposit({'20': 11})", "cash_to_deposit({'20': 10, '5': 1})",
         "cash_to_deposit({'50': 4, '20': 7, '10': 3, '1': 9, '0.25': 13})",
         "cash_to_deposit({'10': 5, '0.1': 30})", "cash_to_deposit({'100': 3, '0.05': 7})",
         "cash_to_deposit({'20': 12, '2': 2})", "cash_to_deposit({})",
         "cash_to_deposit({'5': 41, '0.01': 99})", "cash_to_deposit({'50': 10, '20': 1, '1': 4})"],
        hidden="""I always leave a float of 200 in the drawer. The deposit is whatever is above the float, rounded
            down to a multiple of 5, and the leftover stays in the drawer. If there is 200 or less in the
            drawer, the deposit is 0. Return the deposit as a float.""",
        generic="""
            def cash_to_deposit(counts):
                return round(sum(float(d) * n for d, n in counts.items()), 2)
            """,
    ),
    _task(  # b007
        7,
        description="""I get quotes from several suppliers for the same order and want a function that picks which one to
            go with. Each quote is a dict with 'name', 'price' and 'days' (delivery time), and I want the name
            of the supplier I should choose.""",
        ground_truth="""
            def pick_supplier(quotes):
                ok = [q for q in quotes if q["days"] <= 10]
                if not ok:
                    return "none"
                best = min(ok, key=lambda q: (q["price"] + 2 * q["days"], q["days"], q["name"]))
                return best["name"]
            """,
        tests=["pick_supplier([{'name': 'Acme', 'price': 100, 'days': 2}, {'name': 'Bolt', 'price': 90, 'days': 9}])",
         "pick_supplier([{'name': 'Acme', 'price': 100, 'days': 2}, {'name': 'Bolt', 'price': 97, 'days': 3}])",
         "pick_supplier([{'name': 'Acme', 'price': 100, 'days': 2}, {'name': 'Bolt', 'price': 98, 'days': 3}])",
         "pick_supplier([{'name': 'Cheap', 'price': 10, 'days': 14}, {'name': 'Fast', 'price': 60, 'days': 1}])",
         "pick_supplier([{'name': 'Slow', 'price': 5, 'days': 11}])",
         "pick_supplier([{'name': 'Zed', 'price': 50, 'days': 4}, {'name': 'Amy', 'price': 50, 'days': 4}])",
         "pick_supplier([{'name': 'One', 'price': 80, 'days': 10}, {'name': 'Two', 'price': 75, 'days': 12}])",
         "pick_supplier([{'name': 'P', 'price': 200, 'days': 0}, {'name': 'Q', 'price': 150, 'days': 20}, {'name': 'R', 'price': 190, 'days': 6}])",
         "pick_supplier([])",
         "pick_supplier([{'name': 'North', 'price': 44.5, 'days': 3}, {'name': 'South', 'price': 40, 'days': 5}])"],
        hidden="""Each day of delivery time is worth 2 in cost to me, so I compare price plus 2 times the days.
            Suppliers that take more than 10 days are never chosen. If two suppliers tie on that total, pick
            the faster one, and if still tied, the name that comes first alphabetically. If no supplier
            qualifies, return 'none'.""",
        generic="""
            def pick_supplier(quotes):
                if not quotes:
                    return None
                return min(quotes, key=lambda q: q["price"])["name"]
            """,
    ),
    _task(  # b008
        8,
        description="""At the end of the night my bar pools all the tips and I want a function to split them among the
            staff. I pass a dict from staff name to [role, hours worked] and the total tips, and I want a dict
            from name to their share.""",
        ground_truth="""
            def split_tips(staff, total_tips):
                weights = {"bartender": 1.5, "server": 1.0, "busser": 0.5}
                points = {n: weights.get(r.lower(), 0.0) * h for n, (r, h) in staff.items()}
                total = sum(points.values())
                if total == 0:
                    return {n: 0.0 for n in staff}
                return {n: round(total_tips * p / total, 2) for n, p in points.items()}
            """,
        tests=["split_tips({'Ana': ['server', 5], 'Ben': ['server', 5]}, 300)",
         "split_tips({'Ana': ['bartender', 4], 'Ben': ['server', 6]}, 240)",
         "split_tips({'Ana': ['server', 8], 'Cy': ['busser', 8]}, 150)",
         "split_tips({'Ana': ['server', 6], 'Dee': ['kitchen', 6]}, 100)",
         "split_tips({'Eve': ['Bartender', 3], 'Fay': ['SERVER', 2], 'Gus': ['busser', 4]}, 187.5)",
         "split_tips({'Hal': ['kitchen', 8]}, 50)",
         "split_tips({'Ivy': ['bartender', 7.5], 'Jo': ['host', 7.5]}, 99.99)",
         "split_tips({'Kai': ['server', 3], 'Lou': ['server', 4], 'Max': ['server', 5]}, 120)",
         "split_tips({'Ned': ['busser', 10], 'Oli': ['bartender', 2]}, 70)",
         "split_tips({'Pam': ['server', 0], 'Quin': ['busser', 6]}, 33)"],
        hidden="""Tips are shared in proportion to hours worked, weighted by role. Bartenders' hours count 1.5
            times. Servers' hours count once. Bussers' hours count half. Kitchen staff and any other role get
            no share, 0.0. Role names are matched ignoring case. Round each share to 2 decimals. If nobody
            qualifies, everyone gets 0.0.""",
        generic="""
            def split_tips(staff, total_tips):
                total_hours = sum(h for _, h in staff.values())
                if total_hours == 0:
                    return {n: 0.0 for n in staff}
                return {n: round(total_tips * h / total_hours, 2) for n, (_, h) in staff.items()}
            """,
    ),
    # ---------------------------------------------------------------- office & productivity
    _task(  # b009
        9,
        description="""I want a function that finds the first time in my day where a new meeting fits. I pass my busy
            meetings as a list of (start, end) pairs in minutes after midnight and the duration in minutes of
            the new meeting, and I want its start time back.""",
        ground_truth="""
            def first_free_slot(busy, duration):
                blocks = [(s, e + 10) for s, e in busy] + [(720, 780)]
                start = 510
                while start + duration <= 990:
                    end = start + duration
                    if all(end <= s or start >= e for s, e in blocks):
                        return start
                    start += 15
                return -1
            """,
        tests=["first_free_slot([], 30)", "first_free_slot([(510, 600)], 30)", "first_free_slot([(510, 605)], 60)",
         "first_free_slot([(540, 720)], 60)", "first_free_slot([(510, 700)], 30)",
         "first_free_slot([(510, 720), (780, 960)], 30)", "first_free_slot([(510, 720), (780, 960)], 45)",
         "first_free_slot([(600, 660)], 90)", "first_free_slot([(525, 540), (555, 570)], 20)",
         "first_free_slot([(780, 990)], 240)"],
        hidden="""My working day runs from 8:30 (510) to 16:30 (990), and a meeting must end by 16:30. Lunch from
            12:00 to 13:00 (720 to 780) is always blocked. I need a 10-minute buffer after each busy meeting
            before the next one can start; lunch needs no buffer. Meetings may only start on a quarter hour, a
            multiple of 15 minutes. Return the earliest start that fits. If nothing fits, return -1.""",
        generic="""
            def first_free_slot(busy, duration):
                start = 540
                for s, e in sorted(busy):
                    if s - start >= duration:
                        return start
                    start = max(start, e)
                if 1020 - start >= duration:
                    return start
                return -1
            """,
    ),
    _task(  # b010 (test)
        10,
        description="""My inbox is a mess and I want a function that gives each email a priority label from the sender's
            address and the subject line. It should return 'high', 'normal' or 'low'.""",
        ground_truth="""
            def email_priority(sender, subject):
                s = sender.strip().lower()
                subj = subject.strip().lower()
                if s == "maria.k@ourco.com":
                    return "high"
                if s.startswith("noreply") or s.startswith("no-reply") or subj.startswith("[list]"):
                    return "low"
                if s.endswith("@acme-legal.com") or "invoice" in subj or "urgent" in subj:
                    return "high"
                return "normal"
            """,
        tests=["email_priority('Maria.K@ourco.com', 'lunch?')", "email_priority('noreply@shop.com', 'URGENT: sale ends')",
         "email_priority('no-reply@bank.com', 'Your statement')", "email_priority('team@lists.org', '[LIST] urgent fix merged')",
         "email_priority('j.doe@acme-legal.com', 'Contract draft')", "email_priority('bob@vendor.com', 'Invoice #4412')",
         "email_priority('bob@vendor.com', 'Quick question')", "email_priority('alice@ourco.com', 'urgent: server down')",
         "email_priority('news@paper.com', 'Weekly newsletter')", "email_priority('maria.k@ourco.com', '[list] digest')"],
        hidden="""Anything from my manager, maria.k@ourco.com, is high priority no matter what. Emails from
            addresses starting with 'noreply' or 'no-reply' are low priority. Mailing-list emails, whose subject
            starts with '[list]', are low priority, even if they mention urgent or invoice. Anything from our
            lawyers at the domain acme-legal.com is high priority. A subject containing 'invoice' or 'urgent'
            is high priority. Matching ignores upper or lower case. Everything else is normal.""",
        generic="""
            def email_priority(sender, subject):
                subj = subject.lower()
                if "urgent" in subj or "asap" in subj:
                    return "high"
                if "newsletter" in subj or "noreply" in sender.lower():
                    return "low"
                return "normal"
            """,
    ),
    _task(  # b011
        11,
        description="""I keep my to-do items as dicts with 'name', 'due' (days from today), 'hours' (effort) and
            'blocked' (True or False). I want a function that puts them in the order I should work on them and
            returns the names.""",
        ground_truth="""
            def order_tasks(tasks):
                ranked = sorted(tasks, key=lambda t: (t["blocked"], t["due"], t["hours"], t["name"]))
                return [t["name"] for t in ranked]
            """,
        tests=["order_tasks([{'name': 'b', 'due': 2, 'hours': 1, 'blocked': False}, {'name': 'a', 'due': 1, 'hours': 5, 'blocked': False}])",
         "order_tasks([{'name': 'x', 'due': 0, 'hours': 1, 'blocked': True}, {'name': 'y', 'due': 5, 'hours': 1, 'blocked': False}])",
         "order_tasks([{'name': 'long', 'due': 3, 'hours': 8, 'blocked': False}, {'name': 'short', 'due': 3, 'hours': 2, 'blocked': False}])",
         "order_tasks([{'name': 'zeta', 'due': 1, 'hours': 2, 'blocked': False}, {'name': 'alpha', 'due': 1, 'hours': 2, 'blocked': False}])",
         "order_tasks([])",
         "order_tasks([{'name': 'r', 'due': -2, 'hours': 3, 'blocked': False}, {'name': 's', 'due': 0, 'hours': 1, 'blocked': False}])",
         "order_tasks([{'name': 'c', 'due': 4, 'hours': 1, 'blocked': True}, {'name': 'b', 'due': 2, 'hours': 1, 'blocked': True}, {'name': 'a', 'due': 9, 'hours': 1, 'blocked': False}])",
         "order_tasks([{'name': 'm', 'due': 1, 'hours': 4, 'blocked': False}, {'name': 'n', 'due': 1, 'hours': 0.5, 'blocked': True}, {'name': 'o', 'due': 1, 'hours': 2, 'blocked': False}])",
         "order_tasks([{'name': 'only', 'due': 7, 'hours': 1, 'blocked': True}])",
         "order_tasks([{'name': 'q', 'due': 2, 'hours': 3, 'blocked': False}, {'name': 'p', 'due': 2, 'hours': 3, 'blocked': True}, {'name': 'o', 'due': 2, 'hours': 1, 'blocked': False}])"],
        hidden="""Blocked tasks always go after all unblocked tasks. Within each group, the task due soonest comes
            first. If two are due the same day, the one needing fewer hours comes first. Remaining ties go
            alphabetically by name.""",
        generic="""
            def order_tasks(tasks):
                return [t["name"] for t in sorted(tasks, key=lambda t: t["due"])]
            """,
    ),
    _task(  # b012
        12,
        description="""For my timesheets I want a function that turns a number of minutes into a short readable duration
            string. I log everything in minutes and the output goes straight onto my reports.""",
        ground_truth="""
            def format_duration(minutes):
                days, rest = divmod(minutes, 480)
                hours, mins = divmod(rest, 60)
                if days:
                    return f"{days}d {hours}h {mins:02d}m"
                if hours:
                    return f"{hours}h {mins:02d}m"
                return f"{mins}m"
            """,
        tests=["format_duration(0)", "format_duration(45)", "format_duration(65)", "format_duration(60)",
         "format_duration(479)", "format_duration(480)", "format_duration(510)", "format_duration(1000)",
         "format_duration(125)", "format_duration(2400)"],
        hidden="""A day means one 8-hour working day, so 480 minutes is one day, shown as 'd'. Minutes are always
            shown with two digits when hours are shown, like '1h 05m'. Leading zero parts are left out: 45
            minutes is just '45m' and 0 minutes is '0m'. When days are shown, hours are always shown too, even
            0 hours, like '1d 0h 30m'. Parts are separated by single spaces.""",
        generic="""
            def format_duration(minutes):
                hours, mins = divmod(minutes, 60)
                if hours:
                    return f"{hours}h {mins}m"
                return f"{mins}m"
            """,
    ),
    _task(  # b013
        13,
        description="""Staff clock in and out and I want a function that works out how many hours to bill for a shift
            from the clock-in and clock-out times. The times come as strings like '08:52'.""",
        ground_truth="""
            def billable_hours(clock_in, clock_out):
                def to_min(t):
                    h, m = t.split(":")
                    q, r = divmod(int(h) * 60 + int(m), 15)
                    return (q + (1 if r > 7 else 0)) * 15
                worked = to_min(clock_out) - to_min(clock_in)
                if worked > 360:
                    worked -= 30
                return round(worked / 60, 2)
            """,
        tests=["billable_hours('09:00', '12:00')", "billable_hours('08:52', '12:07')", "billable_hours('08:53', '12:08')",
         "billable_hours('07:00', '15:00')", "billable_hours('09:00', '15:00')", "billable_hours('09:00', '15:08')",
         "billable_hours('13:22', '17:44')", "billable_hours('06:07', '18:53')", "billable_hours('10:00', '10:05')",
         "billable_hours('22:15', '23:59')"],
        hidden="""Clock times are 'HH:MM' in 24-hour time on the same day. Each clock time is rounded to the
            nearest quarter hour: 7 minutes or less past a quarter rounds down, 8 or more rounds up. A 30-minute
            unpaid break is subtracted when the rounded shift is longer than 6 hours. Return the hours as a
            number rounded to 2 decimals.""",
        generic="""
            def billable_hours(clock_in, clock_out):
                h1, m1 = map(int, clock_in.split(":"))
                h2, m2 = map(int, clock_out.split(":"))
                return round(((h2 * 60 + m2) - (h1 * 60 + m1)) / 60, 2)
            """,
    ),
    _task(  # b014
        14,
        description="""I want a function that checks my calendar for clashes. Events are a list of (name, start, end)
            tuples with times in minutes after midnight, and I want the list of event pairs that conflict.""",
        ground_truth="""
            def find_conflicts(events):
                pairs = []
                for i in range(len(events)):
                    for j in range(i + 1, len(events)):
                        a, b = events[i], events[j]
                        if a[1] < b[2] + 5 and b[1] < a[2] + 5:
                            pairs.append(tuple(sorted((a[0], b[0]))))
                return sorted(pairs)
            """,
        tests=["find_conflicts([('standup', 540, 555), ('review', 550, 600)])",
         "find_conflicts([('standup', 540, 555), ('review', 555, 600)])",
         "find_conflicts([('standup', 540, 555), ('review', 559, 600)])",
         "find_conflicts([('standup', 540, 555), ('review', 560, 600)])",
         "find_conflicts([('zoo', 600, 660), ('art', 620, 640)])",
         "find_conflicts([('c', 100, 200), ('b', 150, 250), ('a', 240, 300)])",
         "find_conflicts([])",
         "find_conflicts([('lunch', 720, 780), ('gym', 783, 840), ('call', 900, 930)])",
         "find_conflicts([('x', 0, 10), ('y', 20, 30), ('z', 40, 50)])",
         "find_conflicts([('one', 500, 520), ('two', 480, 497), ('three', 523, 530)])"],
        hidden="""Two events conflict if they overlap or if there are fewer than 5 minutes between them. Exactly 5
            minutes between events is fine. Each pair is a tuple with the two names in alphabetical order. The
            list of pairs is sorted. No conflicts gives an empty list.""",
        generic="""
            def find_conflicts(events):
                pairs = []
                for i in range(len(events)):
                    for j in range(i + 1, len(events)):
                        a, b = events[i], events[j]
                        if a[1] < b[2] and b[1] < a[2]:
                            pairs.append((a[0], b[0]))
                return pairs
            """,
    ),
    _task(  # b015 (test)
        15,
        description="""I want a little function that gives each deadline on my to-do board a label based on how many days
            are left until it is due. A negative number means the due date has already passed.""",
        ground_truth="""
            def deadline_label(days_left):
                if days_left < 0:
                    return "overdue"
                if days_left == 0:
                    return "today"
                if days_left <= 3:
                    return "soon"
                if days_left <= 14:
                    return "upcoming"
                return "later"
            """,
        tests=["deadline_label(-1)", "deadline_label(0)", "deadline_label(1)", "deadline_label(3)", "deadline_label(4)",
         "deadline_label(7)", "deadline_label(8)", "deadline_label(14)", "deadline_label(15)", "deadline_label(-30)"],
        hidden="""Negative days means 'overdue'. Zero days is 'today'. 1 to 3 days is 'soon'. 4 to 14 days is
            'upcoming'. More than 14 days is 'later'.""",
        generic="""
            def deadline_label(days_left):
                if days_left < 0:
                    return "overdue"
                if days_left == 0:
                    return "today"
                if days_left == 1:
                    return "tomorrow"
                if days_left <= 7:
                    return "this week"
                return "later"
            """,
    ),
    # ---------------------------------------------------------------- text processing
    _task(  # b016
        16,
        description="""I keep a reading list and want the authors' names written the way I like them in my notes. The
            function takes a full name as I type it, like 'john ronald reuel tolkien', and returns the formatted
            version.""",
        ground_truth="""
            def format_name(full_name):
                particles = {"van", "von", "de", "da", "del"}
                words = full_name.split()
                if not words:
                    return ""
                if len(words) == 1:
                    return words[0].upper()
                i = len(words) - 1
                while i > 1 and words[i - 1].lower() in particles:
                    i -= 1
                surname = " ".join([w.lower() for w in words[i:-1]] + [words[-1].upper()])
                initials = "".join(w[0].upper() + "." for w in words[:i])
                return f"{surname}, {initials}"
            """,
        tests=["format_name('john ronald reuel tolkien')", "format_name('Jane Austen')", "format_name('vincent van gogh')",
         "format_name('Ludwig Van Beethoven')", "format_name('Homer')", "format_name('gabriel garcia marquez')",
         "format_name('Leonardo da Vinci')", "format_name('charles de gaulle')",
         "format_name('  mary   shelley ')", "format_name('Johann Wolfgang von Goethe')"],
        hidden="""The surname is the last word and is written in all capitals. It comes first, followed by a comma
            and a space. Every other name becomes an initial in capitals with a period, with no spaces between
            initials, like 'TOLKIEN, J.R.R.'. Surname particles 'van', 'von', 'de', 'da' and 'del' stay
            lowercase in front of the surname, like 'van GOGH, V.'. A single name is just returned in
            capitals.""",
        generic="""
            def format_name(full_name):
                parts = full_name.split()
                if len(parts) == 1:
                    return parts[0].title()
                return parts[-1].title() + ", " + " ".join(p.title() for p in parts[:-1])
            """,
    ),
    _task(  # b017
        17,
        description="""I tag my blog posts by hand and the tags end up inconsistent. I want a function that takes the list
            of raw tags I typed and returns a cleaned-up list.""",
        ground_truth="""
            def normalize_tags(tags):
                out = []
                for tag in tags:
                    t = tag.strip().lstrip("#").strip().lower()
                    t = "-".join(t.split())
                    if len(t) < 2 or t in out:
                        continue
                    out.append(t)
                    if len(out) == 5:
                        break
                return out
            """,
        tests=["normalize_tags(['Python', 'python', 'Web'])", "normalize_tags(['#travel', 'Travel ', 'food'])",
         "normalize_tags(['machine learning', 'AI', 'x'])", "normalize_tags(['a', 'b', 'cc'])",
         "normalize_tags(['one', 'two', 'three', 'four', 'five', 'six'])", "normalize_tags([])",
         "normalize_tags(['  Data   Science ', 'data science', 'DATA-SCIENCE'])",
         "normalize_tags(['zeta', 'alpha', 'Zeta', 'beta'])", "normalize_tags(['#', '##', ' ', 'ok'])",
         "normalize_tags(['New York', '#new york', 'Paris', 'paris', 'Rome', 'Oslo', 'Bern', 'Kyiv'])"],
        hidden="""Tags are lowercased and trimmed, and any '#' characters at the start are removed. Spaces inside a tag become single
            hyphens. Tags shorter than 2 characters after cleaning are dropped. Duplicates are dropped, keeping
            the first time a tag appears, and the original order is kept (no sorting). I keep at most 5
            tags.""",
        generic="""
            def normalize_tags(tags):
                return sorted(set(t.strip().lower() for t in tags if t.strip()))
            """,
    ),
    _task(  # b018
        18,
        description="""I want a function that turns the title of an article into the slug I use in my site's URLs. My
            site has its own conventions for how slugs look.""",
        ground_truth="""
            def make_slug(title):
                import re
                stop = {"a", "an", "the", "of", "and"}
                words = [w for w in re.findall(r"[a-z0-9]+", title.lower()) if w not in stop]
                slug = ""
                for w in words:
                    cand = w if not slug else slug + "_" + w
                    if len(cand) > 40:
                        break
                    slug = cand
                return slug
            """,
        tests=["make_slug('Hello World')", "make_slug('The Art of War')", "make_slug('Top 10 Tips & Tricks!')",
         "make_slug('An Apple and an Orange')", "make_slug('Python 3.12: What is new')",
         "make_slug('A very long title that keeps going well past the forty character mark')",
         "make_slug('  spaces   everywhere  ')", "make_slug('Rock-and-Roll Forever')",
         "make_slug('Supercalifragilisticexpialidocious and more words')", "make_slug('2024 Year in Review')"],
        hidden="""Words are joined with underscores, not hyphens. Everything is lowercase and only letters and
            digits are kept; any other character separates words. The words 'a', 'an', 'the', 'of' and 'and'
            are dropped. The slug is at most 40 characters, cut at a whole word, never in the middle of a
            word.""",
        generic="""
            def make_slug(title):
                import re
                return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            """,
    ),
    _task(  # b019
        19,
        description="""People sign up for my community forum and I want a function that checks whether a chosen username
            is allowed. It should return True or False.""",
        ground_truth="""
            def valid_username(name):
                import re
                if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{3,15}", name):
                    return False
                if "__" in name or name.endswith("_"):
                    return False
                return "admin" not in name.lower()
            """,
        tests=["valid_username('bob')", "valid_username('bobby')", "valid_username('1bobby')", "valid_username('bob__by')",
         "valid_username('bobby_')", "valid_username('SysAdmin1')", "valid_username('a_b_c_d')",
         "valid_username('abcdefghijklmnop')", "valid_username('abcdefghijklmnopq')", "valid_username('jo-anne')"],
        hidden="""Usernames are 4 to 16 characters long. They must start with a letter. Only letters, digits and
            underscores are allowed. Two underscores in a row are not allowed, and a username cannot end with an
            underscore. Anything containing 'admin' in any capitalisation is rejected.""",
        generic="""
            def valid_username(name):
                import re
                return re.fullmatch(r"[A-Za-z0-9_]{3,20}", name) is not None
            """,
    ),
    _task(  # b020 (test)
        20,
        description="""I store my customers' addresses as dicts with 'street', 'unit', 'city', 'state' and 'zip', and I
            want a function that turns one into the single line I print on shipping labels. The labels should all look the same no matter how the address was typed in.""",
        ground_truth="""
            def format_address(addr):
                street = addr["street"].strip()
                if addr.get("unit"):
                    street += " Apt " + str(addr["unit"]).strip()
                city = addr["city"].strip().title()
                state = addr["state"].strip().upper()
                zip_code = str(addr["zip"]).strip().zfill(5)
                return f"{street}, {city}, {state} {zip_code}"
            """,
        tests=["format_address({'street': '12 Oak St', 'unit': '4', 'city': 'springfield', 'state': 'il', 'zip': '62704'})",
         "format_address({'street': '9 Elm Rd', 'unit': '', 'city': 'Boston', 'state': 'MA', 'zip': 2134})",
         "format_address({'street': '1 Main St', 'city': 'new york', 'state': 'ny', 'zip': '10001'})",
         "format_address({'street': '77 Sunset Blvd', 'unit': 12, 'city': 'LOS ANGELES', 'state': 'Ca', 'zip': 90028})",
         "format_address({'street': ' 5 Pine Ln ', 'unit': None, 'city': ' austin ', 'state': ' tx ', 'zip': ' 73301 '})",
         "format_address({'street': '300 Bay St', 'unit': '2B', 'city': 'san francisco', 'state': 'ca', 'zip': '94133'})",
         "format_address({'street': '8 Hill Ct', 'unit': '', 'city': 'portland', 'state': 'me', 'zip': 4101})",
         "format_address({'street': '42 Wallaby Way', 'unit': '1', 'city': 'sydney', 'state': 'nsw', 'zip': 2000})",
         "format_address({'street': '10 Downing St', 'city': 'DOVER', 'state': 'de', 'zip': '19901'})",
         "format_address({'street': '600 Lake Dr', 'unit': '1405', 'city': 'chicago', 'state': 'IL', 'zip': 60611})"],
        hidden="""The format is one line: 'street, City, ST 12345'. If there is a unit, it goes right after the
            street as 'Apt' and the unit, like '12 Oak St Apt 4'. An empty or missing unit is left out. The
            city is in title case. The state is in capitals. The zip code always has 5 digits, padded with
            leading zeros, and may be given as a number. There is a space, not a comma, between the state and
            the zip.""",
        generic="""
            def format_address(addr):
                parts = [addr.get("street"), addr.get("unit"), addr.get("city"), addr.get("state"), addr.get("zip")]
                return ", ".join(str(p) for p in parts if p)
            """,
    ),
    _task(  # b021
        21,
        description="""Our team app shows a little circle with initials when someone has no profile picture. I want a
            function that takes a person's name as they entered it and returns the initials to show.""",
        ground_truth="""
            def avatar_initials(name):
                titles = {"dr", "mr", "mrs", "ms", "prof"}
                words = [w for w in name.split() if w.lower().strip(".") not in titles]
                if not words:
                    return "??"
                if len(words) == 1:
                    w = words[0]
                    return w[0].upper() + w[1:2].lower()
                return (words[0][0] + words[-1][0]).upper()
            """,
        tests=["avatar_initials('Ada Lovelace')", "avatar_initials('john fitzgerald kennedy')", "avatar_initials('Cher')",
         "avatar_initials('Dr. Jane Smith')", "avatar_initials('prof Alan Mathison Turing')", "avatar_initials('')",
         "avatar_initials('Mr.')", "avatar_initials('bono')", "avatar_initials('Ms Rita Ora')",
         "avatar_initials('Grace Brewster Murray Hopper')"],
        hidden="""Use the first letter of the first name and the first letter of the last name, in capitals. Middle
            names are ignored. Titles like Dr, Mr, Mrs, Ms and Prof, with or without a period, are skipped. If
            there is only one name, use its first two letters, the first uppercase and the second lowercase,
            like 'Ch' for 'Cher'. If nothing is left, return '??'.""",
        generic="""
            def avatar_initials(name):
                return "".join(w[0].upper() for w in name.split())[:2]
            """,
    ),
    _task(  # b022
        22,
        description="""Phone numbers in my contact sheet are typed every which way. I want a function that takes a raw
            phone number string and returns it in the one format I use.""",
        ground_truth="""
            def format_phone(raw):
                digits = "".join(c for c in raw if c.isdigit())
                if len(digits) == 11 and digits[0] == "1":
                    digits = digits[1:]
                if len(digits) != 10:
                    return "invalid"
                return f"{digits[:3]}.{digits[3:6]}.{digits[6:]}"
            """,
        tests=["format_phone('5551234567')", "format_phone('(555) 123-4567')", "format_phone('+1 555 123 4567')",
         "format_phone('1-555-123-4567')", "format_phone('555-1234')", "format_phone('25551234567')",
         "format_phone('555.987.6543')", "format_phone('')", "format_phone('call 212 555 0199 now')",
         "format_phone('123456789012')"],
        hidden="""I write numbers with dots, like '555.123.4567'. All non-digit characters in the input are
            ignored. An 11-digit number starting with 1 has the leading 1, the country code, dropped. Anything
            that isn't 10 digits after that returns 'invalid'.""",
        generic="""
            def format_phone(raw):
                digits = "".join(c for c in raw if c.isdigit())
                if len(digits) != 10:
                    return raw
                return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
            """,
    ),
    _task(  # b023
        23,
        description="""My newsletter shows a short preview of each article and I want a function that shortens the text
            to fit a character limit. It takes the text and the limit.""",
        ground_truth="""
            def preview_text(text, limit):
                if len(text) <= limit:
                    return text
                out = ""
                for w in text.split():
                    cand = w if not out else out + " " + w
                    if len(cand) + 3 > limit:
                        break
                    out = cand
                return out.rstrip(",.;:!?") + "..."
            """,
        tests=["preview_text('Short one', 20)", "preview_text('The quick brown fox jumps over the lazy dog', 20)",
         "preview_text('Hello, world, and everyone else here', 16)", "preview_text('Exactly ten', 11)",
         "preview_text('Exactly ten!', 11)", "preview_text('Stop. Then go on and on and on', 10)",
         "preview_text('Good morning to you all', 15)", "preview_text('a b c d e f g h', 9)",
         "preview_text('Wait; what happened here', 11)", "preview_text('One   two   three   four', 14)"],
        hidden="""If the text fits within the limit, it is returned unchanged. Otherwise it is cut at a whole word
            and '...' is added. The '...' counts toward the limit, so the result is never longer than the limit.
            Punctuation (, . ; : ! ?) at the end of the cut text is removed before adding '...'. Words are
            separated by whitespace, and runs of spaces become single spaces in a cut preview.""",
        generic="""
            def preview_text(text, limit):
                if len(text) <= limit:
                    return text
                return text[:limit].rstrip() + "..."
            """,
    ),
    _task(  # b024
        24,
        description="""I write headlines for our company blog and want a function that puts them in proper headline
            capitalisation the way our style guide wants it. Writers type them in all sorts of casing.""",
        ground_truth="""
            def headline_case(text):
                small = {"a", "an", "the", "and", "or", "of", "in", "on", "to", "for"}
                words = text.split()
                out = []
                for i, w in enumerate(words):
                    if len(w) >= 2 and w.isupper():
                        out.append(w)
                    elif w.lower() in small and 0 < i < len(words) - 1:
                        out.append(w.lower())
                    else:
                        out.append("-".join(p[:1].upper() + p[1:].lower() for p in w.split("-")))
                return " ".join(out)
            """,
        tests=["headline_case('the lord of the rings')", "headline_case('NASA plans a return to the moon')",
         "headline_case('long-term plans for the UK')", "headline_case('what are you looking for')",
         "headline_case('a tale of two cities')", "headline_case('rock and roll')", "headline_case('in')",
         "headline_case('WHY we moved to AWS')", "headline_case('state-of-the-art tools in an hour')",
         "headline_case('mIxEd cAsE words on top')"],
        hidden="""Small words 'a', 'an', 'the', 'and', 'or', 'of', 'in', 'on', 'to' and 'for' stay lowercase,
            unless they are the first or last word. Words written in all capitals with at least 2 letters, like
            'NASA' or 'UK', are left as they are. Every part of a hyphenated word is capitalised, like
            'Long-Term'. Other words get a capital first letter and the rest lowercase. Words are separated by
            single spaces in the result.""",
        generic="""
            def headline_case(text):
                return text.title()
            """,
    ),
    # ---------------------------------------------------------------- data cleaning
    _task(  # b025 (test)
        25,
        description="""My contact list has the same people in it several times and I want a function that removes the
            duplicates. Each contact is a dict with 'name', 'email' and 'phone', and I want back the names of
            the contacts that survive.""",
        ground_truth="""
            def dedupe_contacts(contacts):
                def email(c):
                    return c.get("email", "").strip().lower()
                def phone(c):
                    return "".join(ch for ch in c.get("phone", "") if ch.isdigit())
                keep = []
                for i, c in enumerate(contacts):
                    dup_later = any((email(c) and email(c) == email(d)) or (phone(c) and phone(c) == phone(d))
                                    for d in contacts[i + 1:])
                    if not dup_later:
                        keep.append(c["name"])
                return keep
            """,
        tests=["dedupe_contacts([{'name': 'Ann', 'email': 'ann@x.com', 'phone': ''}, {'name': 'Ann B', 'email': 'ANN@x.com ', 'phone': ''}])",
         "dedupe_contacts([{'name': 'Bo', 'email': '', 'phone': '555-1234'}, {'name': 'Bob', 'email': 'bob@y.com', 'phone': '(555) 1234'}])",
         "dedupe_contacts([{'name': 'Cy', 'email': '', 'phone': ''}, {'name': 'Di', 'email': '', 'phone': ''}])",
         "dedupe_contacts([{'name': 'Ed', 'email': 'e@z.com', 'phone': '1'}, {'name': 'Flo', 'email': 'f@z.com', 'phone': '2'}])",
         "dedupe_contacts([])",
         "dedupe_contacts([{'name': 'G1', 'email': 'g@a.com', 'phone': '111'}, {'name': 'H', 'email': 'h@a.com', 'phone': '222'}, {'name': 'G2', 'email': 'g@a.com', 'phone': '333'}])",
         "dedupe_contacts([{'name': 'I1', 'email': 'i@a.com', 'phone': ''}, {'name': 'I2', 'email': 'i@a.com', 'phone': ''}, {'name': 'I3', 'email': 'I@A.COM', 'phone': ''}])",
         "dedupe_contacts([{'name': 'J', 'email': 'j@a.com', 'phone': '12 34'}, {'name': 'K', 'email': 'k@a.com', 'phone': '1234'}, {'name': 'L', 'email': 'l@a.com', 'phone': '9'}])",
         "dedupe_contacts([{'name': 'M', 'email': 'm@a.com', 'phone': ''}])",
         "dedupe_contacts([{'name': 'N', 'email': 'n@a.com', 'phone': '7'}, {'name': 'O', 'email': 'o@a.com', 'phone': ''}, {'name': 'N2', 'email': ' N@a.com', 'phone': '8'}, {'name': 'P', 'email': '', 'phone': '7'}])"],
        hidden="""Two contacts are duplicates if they have the same email, ignoring case and spaces around it. They
            are also duplicates if their phone numbers have the same digits, ignoring spaces, dashes and
            brackets. Empty emails or phones never match anything. When there are duplicates, keep the one that
            appears latest in the list because it is the most recent. Return the names of the kept contacts in
            their original order.""",
        generic="""
            def dedupe_contacts(contacts):
                seen = set()
                out = []
                for c in contacts:
                    key = c.get("email", "").lower()
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(c["name"])
                return out
            """,
    ),
    _task(  # b026
        26,
        description="""I log readings from a sensor in my workshop and some of them are junk. I want a function that
            takes the list of readings and throws away the bad ones.""",
        ground_truth="""
            def clean_readings(values):
                positive = sorted(v for v in values if v > 0)
                if not positive:
                    return []
                n = len(positive)
                mid = n // 2
                median = positive[mid] if n % 2 else (positive[mid - 1] + positive[mid]) / 2
                return [v for v in values if 0 < v <= 3 * median]
            """,
        tests=["clean_readings([10, 12, 11, 95])", "clean_readings([10, 12, 11, 30])", "clean_readings([0, 5, 6, -2, 7])",
         "clean_readings([1, 2, 3, 4, 100, 5])", "clean_readings([-1, 0])", "clean_readings([4.5])",
         "clean_readings([2, 2, 2, 2, 7])", "clean_readings([10, 20, 61, 59, 30])", "clean_readings([])",
         "clean_readings([3, 0.5, 8, 40, 9, -3])"],
        hidden="""Readings of 0 or below are sensor errors and are dropped. A reading more than 3 times the median
            of the positive readings is an outlier and is dropped; exactly 3 times the median is kept. Keep the
            remaining readings in their original order. If no reading is positive, return an empty list.""",
        generic="""
            def clean_readings(values):
                import statistics
                if len(values) < 2:
                    return list(values)
                m = statistics.mean(values)
                s = statistics.pstdev(values)
                return [v for v in values if abs(v - m) <= 2 * s]
            """,
    ),
    _task(  # b027
        27,
        description="""I export amounts from an old accounting spreadsheet and they come out as messy strings. I want a
            function that turns a list of those strings into a list of numbers.""",
        ground_truth="""
            def parse_amounts(raw):
                out = []
                for s in raw:
                    t = s.strip().replace("$", "").replace(",", "").replace(" ", "")
                    neg = t.startswith("(") and t.endswith(")")
                    if neg:
                        t = t[1:-1]
                    mult = 1
                    if t[-1:].lower() == "k":
                        mult, t = 1000, t[:-1]
                    try:
                        v = float(t) * mult
                    except ValueError:
                        continue
                    out.append(round(-v if neg else v, 2))
                return out
            """,
        tests=["parse_amounts(['$1,234.50', '12'])", "parse_amounts(['(45.00)', '$ 3'])", "parse_amounts(['1.2k', '3K'])",
         "parse_amounts(['N/A', '', '-', '7'])", "parse_amounts(['($1,000)'])", "parse_amounts([])",
         "parse_amounts(['12.345', '0.005'])", "parse_amounts(['-5', 'abc', '(2.5k)'])",
         "parse_amounts(['$0', ' 99 '])", "parse_amounts(['1,000,000', 'k'])"],
        hidden="""Dollar signs, commas and spaces are ignored. An amount in brackets like '(45.00)' is negative,
            accounting style. A 'k' or 'K' at the end means thousands, so '1.2k' is 1200. Entries that can't be
            read as a number, like 'N/A', '' or '-', are dropped from the list. Each amount is rounded to 2
            decimals.""",
        generic="""
            def parse_amounts(raw):
                out = []
                for s in raw:
                    try:
                        out.append(float(s.replace("$", "").replace(",", "")))
                    except ValueError:
                        out.append(0.0)
                return out
            """,
    ),
    _task(  # b028
        28,
        description="""My weather station sometimes misses a reading and logs None instead. I want a function that takes
            the list of readings and fills in the missing ones.""",
        ground_truth="""
            def fill_gaps(readings):
                known = [r for r in readings if r is not None]
                if not known:
                    return [0] * len(readings)
                out = []
                last = known[0]
                for r in readings:
                    if r is not None:
                        last = r
                    out.append(last)
                return out
            """,
        tests=["fill_gaps([1, None, 3])", "fill_gaps([None, None, 5, 6])", "fill_gaps([None, None])",
         "fill_gaps([2, None, None, 8, None])", "fill_gaps([])", "fill_gaps([4.5, 4.7])",
         "fill_gaps([None, 1, None, 10, None, None])", "fill_gaps([0, None, -3, None])",
         "fill_gaps([None])", "fill_gaps([7, 7, None, 1, None, 9])"],
        hidden="""A missing reading takes the value of the last real reading before it. Missing readings at the very
            start take the first real reading in the list. If every reading is missing, every value becomes 0.
            The list keeps its length and order.""",
        generic="""
            def fill_gaps(readings):
                known = [r for r in readings if r is not None]
                mean = round(sum(known) / len(known), 2) if known else 0
                return [r if r is not None else mean for r in readings]
            """,
    ),
    _task(  # b029
        29,
        description="""People type dates into our sign-up sheet in all sorts of ways. I want a function that takes one
            date string and returns it in a single standard form.""",
        ground_truth="""
            def standardize_date(text):
                months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
                t = text.strip().lower().replace(",", " ")
                try:
                    if "-" in t:
                        y, m, d = (int(p) for p in t.split("-"))
                    elif "/" in t:
                        d, m, y = (int(p) for p in t.split("/"))
                    else:
                        parts = t.split()
                        if len(parts) != 3:
                            return "invalid"
                        m = months.index(parts[0][:3]) + 1
                        d, y = int(parts[1]), int(parts[2])
                except ValueError:
                    return "invalid"
                if y < 100:
                    y += 2000
                if not (1 <= m <= 12 and 1 <= d <= 31):
                    return "invalid"
                return f"{y:04d}-{m:02d}-{d:02d}"
            """,
        tests=["standardize_date('2024-03-05')", "standardize_date('05/03/2024')", "standardize_date('5/3/24')",
         "standardize_date('March 5 2024')", "standardize_date('Mar 5, 2024')", "standardize_date('13/13/2024')",
         "standardize_date('31/12/99')", "standardize_date('yesterday')", "standardize_date('December 25, 23')",
         "standardize_date('12/25/2024')"],
        hidden="""The output format is 'YYYY-MM-DD'. Dates with slashes are always day/month/year, European style.
            Dates with dashes are already year-month-day. Month names like 'March 5 2024' or 'Mar 5, 2024' are
            allowed, month first. Two-digit years mean 20xx. Anything that can't be read, or has a month over 12
            or a day over 31, gives 'invalid'.""",
        generic="""
            def standardize_date(text):
                from datetime import datetime
                for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%B %d %Y", "%b %d, %Y"):
                    try:
                        return datetime.strptime(text.strip(), fmt).strftime("%Y-%m-%d")
                    except ValueError:
                        pass
                return None
            """,
    ),
    _task(  # b030 (test)
        30,
        description="""I collect survey scores on different scales and want a function that puts a list of scores onto
            one common scale so I can compare them. The output should be a list of the same length.""",
        ground_truth="""
            def rescale_scores(values):
                lo, hi = min(values), max(values)
                if hi == lo:
                    return [10.0 for _ in values]
                return [round(1 + 9 * (v - lo) / (hi - lo), 1) for v in values]
            """,
        tests=["rescale_scores([0, 5, 10])", "rescale_scores([1, 2])", "rescale_scores([3, 3, 3])",
         "rescale_scores([10, 0])", "rescale_scores([2, 4, 7, 9])", "rescale_scores([-5, 0, 5])",
         "rescale_scores([1.5, 2.25, 3.0])", "rescale_scores([100])", "rescale_scores([0, 1, 2, 3, 4, 5, 6])",
         "rescale_scores([50, 75, 60, 90, 55])"],
        hidden="""The lowest score becomes 1 and the highest becomes 10, not 0 to 1 or 0 to 100. Everything in
            between is scaled linearly. Round each result to 1 decimal. If all the scores are the same, every
            score becomes 10.0. The list keeps its order.""",
        generic="""
            def rescale_scores(values):
                lo, hi = min(values), max(values)
                if hi == lo:
                    return [0.0 for _ in values]
                return [round((v - lo) / (hi - lo), 2) for v in values]
            """,
    ),
    # ---------------------------------------------------------------- sports & clubs
    _task(  # b031
        31,
        description="""I run a Sunday football league and want a function that produces the league table. Results come
            as a list of (home, away, home_goals, away_goals) tuples, and I want the team names in table
            order.""",
        ground_truth="""
            def league_table(results):
                table = {}
                for home, away, hg, ag in results:
                    for team, gf, ga in ((home, hg, ag), (away, ag, hg)):
                        row = table.setdefault(team, [0, 0])
                        row[1] += gf
                        if gf > ga:
                            row[0] += 3
                        elif gf == ga:
                            row[0] += 1
                        if gf >= 4:
                            row[0] += 1
                return sorted(table, key=lambda t: (-table[t][0], -table[t][1], t))
            """,
        tests=["league_table([('Lions', 'Tigers', 2, 1)])", "league_table([('Lions', 'Tigers', 1, 1)])",
         "league_table([('Lions', 'Tigers', 4, 5), ('Bears', 'Wolves', 0, 0)])",
         "league_table([('X', 'P', 2, 0), ('Y', 'Q', 3, 2)])",
         "league_table([('A', 'B', 1, 0), ('C', 'D', 5, 0), ('A', 'C', 0, 0), ('B', 'D', 2, 2)])",
         "league_table([('X', 'Y', 6, 0), ('Y', 'Z', 1, 0), ('Z', 'X', 1, 0)])",
         "league_table([])",
         "league_table([('Ants', 'Bees', 4, 0), ('Bees', 'Cats', 1, 0), ('Cats', 'Ants', 1, 0)])",
         "league_table([('Red', 'Blue', 5, 4), ('Green', 'Gold', 0, 0)])",
         "league_table([('U', 'V', 2, 0), ('V', 'W', 3, 1), ('W', 'U', 1, 0), ('U', 'W', 0, 5)])"],
        hidden="""A win is worth 3 points, a draw 1, a loss 0. A team also gets 1 bonus point in any match where it
            scores 4 or more goals, win or lose. Teams are ordered by points, highest first. Ties on points are
            broken by total goals scored (not goal difference), and then alphabetically by name.""",
        generic="""
            def league_table(results):
                table = {}
                for home, away, hg, ag in results:
                    for team, gf, ga in ((home, hg, ag), (away, ag, hg)):
                        row = table.setdefault(team, [0, 0, 0])
                        row[1] += gf - ga
                        row[2] += gf
                        row[0] += 3 if gf > ga else (1 if gf == ga else 0)
                return sorted(table, key=lambda t: (-table[t][0], -table[t][1], -table[t][2], t))
            """,
    ),
    _task(  # b032
        32,
        description="""Our golf society keeps its own simple handicap and I want a function to work it out. I pass a
            player's list of round scores, oldest first, and the course rating.""",
        ground_truth="""
            def golf_handicap(scores, course_rating):
                recent = scores[-5:]
                if len(recent) < 3:
                    return 0.0
                best = sorted(s - course_rating for s in recent)[:3]
                hcp = sum(best) / 3 * 0.96
                return round(min(hcp, 36.0), 1)
            """,
        tests=["golf_handicap([90, 88, 92], 72)", "golf_handicap([90, 88], 72)", "golf_handicap([100, 80, 85, 90, 95, 99], 70)",
         "golf_handicap([85, 85, 85, 85, 85], 71.5)", "golf_handicap([130, 128, 125, 140], 72)",
         "golf_handicap([75, 78, 80, 82, 84, 90, 70], 72)", "golf_handicap([], 72)",
         "golf_handicap([70, 71, 69], 72)", "golf_handicap([95, 91, 99, 88, 102], 73.2)",
         "golf_handicap([110, 80, 81, 82, 120, 121, 122], 72)"],
        hidden="""Only the last 5 rounds count. From those, take the 3 best (lowest) differentials, where a
            differential is the score minus the course rating. Average those 3 and multiply by 0.96. The
            handicap is capped at 36.0. Round to 1 decimal. With fewer than 3 rounds the handicap is 0.0.""",
        generic="""
            def golf_handicap(scores, course_rating):
                if not scores:
                    return 0.0
                diffs = sorted(s - course_rating for s in scores)[:8]
                return round(sum(diffs) / len(diffs) * 0.96, 1)
            """,
    ),
    _task(  # b033
        33,
        description="""I'm the treasurer of our tennis club and want a function that works out a member's yearly fee
            from their age and how many years they have been a member. The fee depends on the age group and we reward loyal members.""",
        ground_truth="""
            def membership_fee(age, years_member):
                if age < 18:
                    base = 60
                elif age >= 65:
                    base = 90
                else:
                    base = 180
                discount = min((years_member // 5) * 0.10, 0.30)
                return round(base * (1 - discount), 2)
            """,
        tests=["membership_fee(30, 0)", "membership_fee(17, 0)", "membership_fee(18, 4)", "membership_fee(65, 5)",
         "membership_fee(64, 10)", "membership_fee(40, 15)", "membership_fee(40, 40)", "membership_fee(12, 9)",
         "membership_fee(70, 20)", "membership_fee(25, 5)"],
        hidden="""Juniors under 18 pay 60 a year. Seniors aged 65 and over pay 90. All other adults pay 180. Members
            get a 10% discount for every 5 full years of membership. The loyalty discount is capped at 30%. Round
            the fee to 2 decimals.""",
        generic="""
            def membership_fee(age, years_member):
                base = 100
                if age < 18 or age >= 65:
                    base = 50
                return round(base * (0.9 if years_member >= 5 else 1.0), 2)
            """,
    ),
    _task(  # b034
        34,
        description="""Our running club puts each runner in an age category for race results. I want a function that
            takes a runner's age and gender and returns their category code.""",
        ground_truth="""
            def race_category(age, gender):
                prefix = "M" if gender.strip().lower() in ("m", "male") else "W"
                if age < 20:
                    band = "U20"
                elif age < 35:
                    band = "Open"
                else:
                    band = "V" + str(min(age // 5 * 5, 70))
                return prefix + band
            """,
        tests=["race_category(19, 'male')", "race_category(20, 'F')", "race_category(34, 'm')", "race_category(35, 'Female')",
         "race_category(44, 'M')", "race_category(47, 'f')", "race_category(69, 'MALE')", "race_category(70, 'female')",
         "race_category(83, 'm')", "race_category(12, 'FEMALE')"],
        hidden="""Under 20 is 'U20'. Ages 20 to 34 are 'Open'. From 35 there are 5-year veteran bands named by their
            lower age: 'V35', 'V40', 'V45' and so on. Everyone 70 and over is 'V70'. The category starts with
            'M' for men or 'W' for women, like 'MV40' or 'WOpen'. Gender may be given as 'm', 'f', 'male' or
            'female' in any case.""",
        generic="""
            def race_category(age, gender):
                return gender.strip()[0].upper() + str(age // 10 * 10)
            """,
    ),
    _task(  # b035 (test)
        35,
        description="""I organise a chess tournament at our club and want a function that makes the first-round
            pairings. I pass a dict from player name to rating and want a list of pairs back.""",
        ground_truth="""
            def first_round_pairings(ratings):
                seeds = sorted(ratings, key=lambda p: (-ratings[p], p))
                pairs = []
                if len(seeds) % 2:
                    pairs.append((seeds[0], "BYE"))
                    seeds = seeds[1:]
                while seeds:
                    pairs.append((seeds[0], seeds[-1]))
                    seeds = seeds[1:-1]
                return pairs
            """,
        tests=["first_round_pairings({'Ann': 1800, 'Bob': 1700})",
         "first_round_pairings({'Ann': 1800, 'Bob': 1700, 'Cat': 1600, 'Dan': 1500})",
         "first_round_pairings({'Ann': 1800, 'Bob': 1700, 'Cat': 1600})",
         "first_round_pairings({'Zoe': 1500, 'Amy': 1500})",
         "first_round_pairings({'Solo': 2000})",
         "first_round_pairings({})",
         "first_round_pairings({'a': 1000, 'b': 1200, 'c': 1400, 'd': 1600, 'e': 1800, 'f': 2000})",
         "first_round_pairings({'Kim': 1650, 'Lee': 1650, 'Max': 1900, 'Ned': 1100, 'Oz': 1650})",
         "first_round_pairings({'P': 1500, 'Q': 1500, 'R': 1500, 'S': 1500})",
         "first_round_pairings({'u': 2100, 'v': 900, 'w': 1500, 'x': 1300, 'y': 1700, 'z': 1100, 't': 1900})"],
        hidden="""Players are seeded by rating, highest first. Equal ratings are seeded alphabetically by name. The
            top seed plays the bottom seed, the second plays the second-lowest, and so on. With an odd number of
            players, the top seed gets a bye, written as the pair (name, 'BYE'), listed first, and the rest are
            paired as usual. Each pair is a tuple with the higher seed first, and pairs are listed from the top
            seed down.""",
        generic="""
            def first_round_pairings(ratings):
                seeds = sorted(ratings, key=lambda p: -ratings[p])
                return [(seeds[i], seeds[i + 1]) for i in range(0, len(seeds) - 1, 2)]
            """,
    ),
    _task(  # b036
        36,
        description="""Our squash club charges for court bookings and I want a function that gives the cost of a booking
            from the start hour (0-23), the length in minutes and whether the person is a member. Prices depend on the time of day.""",
        ground_truth="""
            def court_cost(start_hour, minutes, is_member):
                import math
                cost = 0.0
                t = start_hour * 60
                for _ in range(math.ceil(minutes / 30)):
                    cost += 12.0 if 17 <= (t // 60) % 24 < 21 else 7.0
                    t += 30
                if is_member:
                    cost *= 0.75
                return round(cost, 2)
            """,
        tests=["court_cost(10, 60, False)", "court_cost(18, 60, False)", "court_cost(16, 60, False)", "court_cost(20, 90, False)",
         "court_cost(10, 45, False)", "court_cost(18, 40, True)", "court_cost(9, 30, True)", "court_cost(17, 240, True)",
         "court_cost(21, 60, False)", "court_cost(15, 150, True)"],
        hidden="""Courts are booked in half-hour slots, and any part of a half hour is charged as a full slot. Peak
            time is from 17:00 to 21:00, at 12 per half-hour slot. Any other time is 7 per half-hour slot. A
            booking that runs into or out of peak time is charged slot by slot. Members get 25% off the total.
            Round the cost to 2 decimals.""",
        generic="""
            def court_cost(start_hour, minutes, is_member):
                rate = 20.0
                cost = minutes / 60 * rate
                if is_member:
                    cost *= 0.9
                return round(cost, 2)
            """,
    ),
    _task(  # b037
        37,
        description="""I keep ratings for our chess club ladder and want a function that gives a player's new rating after
            a game. I pass the player's rating, the opponent's rating and the result.""",
        ground_truth="""
            def elo_update(rating, opponent, result):
                score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
                expected = 1 / (1 + 10 ** ((opponent - rating) / 400))
                k = 32 if rating < 1600 else 16
                return round(rating + k * (score - expected))
            """,
        tests=["elo_update(1500, 1500, 'win')", "elo_update(1600, 1600, 'win')", "elo_update(1700, 1500, 'loss')",
         "elo_update(1400, 1800, 'draw')", "elo_update(1599, 1650, 'win')", "elo_update(2000, 1400, 'win')",
         "elo_update(1200, 1000, 'loss')", "elo_update(1850, 1900, 'draw')", "elo_update(1620, 1580, 'loss')",
         "elo_update(1000, 1000, 'draw')"],
        hidden="""I use the standard Elo expected-score formula, 1 / (1 + 10 ** ((opponent - rating) / 400)). The
            result is 'win', 'draw' or 'loss', scoring 1, 0.5 or 0. The K factor is 32 for players rated below
            1600, and 16 for players rated 1600 or above. The new rating is rounded to a whole number.""",
        generic="""
            def elo_update(rating, opponent, result):
                score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
                expected = 1 / (1 + 10 ** ((opponent - rating) / 400))
                return round(rating + 32 * (score - expected))
            """,
    ),
    # ---------------------------------------------------------------- events & venues
    _task(  # b038
        38,
        description="""I sell tickets for our community theatre and want a function that gives the price a person pays,
            from the base ticket price, how many days before the show they buy, and their age. Some people get discounts and some pay extra.""",
        ground_truth="""
            def ticket_price(base, days_before, age):
                price = base
                if days_before >= 30:
                    price *= 0.8
                elif days_before <= 2:
                    price *= 1.15
                if age < 12:
                    price *= 0.5
                elif age >= 65:
                    price *= 0.7
                return round(price, 2)
            """,
        tests=["ticket_price(40, 10, 30)", "ticket_price(40, 30, 30)", "ticket_price(40, 2, 30)", "ticket_price(40, 3, 11)",
         "ticket_price(40, 45, 8)", "ticket_price(40, 1, 70)", "ticket_price(25.5, 29, 65)", "ticket_price(60, 0, 12)",
         "ticket_price(18, 60, 90)", "ticket_price(99.99, 5, 64)"],
        hidden="""Buying 30 or more days before the show gives an early-bird discount of 20%. Buying 2 days or less
            before adds a 15% last-minute surcharge. Children under 12 pay half price. Seniors 65 and over get
            30% off. The time discount or surcharge and the age discount multiply together. Round the price to 2
            decimals.""",
        generic="""
            def ticket_price(base, days_before, age):
                price = base
                if age < 12:
                    price *= 0.5
                elif age >= 65:
                    price *= 0.8
                return round(price, 2)
            """,
    ),
    _task(  # b039
        39,
        description="""I'm printing seat labels for a small concert hall and want a function that makes the label for a
            seat from its row index and seat index. The labels follow the hall's own lettering.""",
        ground_truth="""
            def seat_label(row_index, seat_index):
                letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
                if row_index < len(letters):
                    row = letters[row_index]
                else:
                    row = letters[row_index - len(letters)] * 2
                return f"{row}-{seat_index + 1}"
            """,
        tests=["seat_label(0, 0)", "seat_label(2, 11)", "seat_label(7, 4)", "seat_label(8, 4)", "seat_label(13, 0)",
         "seat_label(14, 9)", "seat_label(23, 30)", "seat_label(24, 0)", "seat_label(26, 2)", "seat_label(5, 99)"],
        hidden="""Both indexes start at 0, but the seat numbers shown start at 1. Rows are lettered A, B, C and so
            on, skipping I and O because they look like numbers. After Z the rows continue as AA, BB, CC and so
            on, using the same letters. The label is the row letters, a hyphen, and the seat number, like
            'C-12'.""",
        generic="""
            def seat_label(row_index, seat_index):
                return f"{chr(65 + row_index)}{seat_index + 1}"
            """,
    ),
    _task(  # b040 (test)
        40,
        description="""I manage bookings for a community hall and want a function that tells me the maximum number of
            people for an event, given the floor area in square metres and the layout. It has to stay on the safe side.""",
        ground_truth="""
            def venue_capacity(area_sqm, layout):
                import math
                per_person = {"standing": 0.5, "theatre": 0.8, "banquet": 1.4}.get(layout.lower(), 1.0)
                return math.floor(round(area_sqm * 0.9 / per_person, 6))
            """,
        tests=["venue_capacity(100, 'standing')", "venue_capacity(100, 'theatre')", "venue_capacity(100, 'banquet')",
         "venue_capacity(100, 'cabaret')", "venue_capacity(250, 'Standing')", "venue_capacity(80, 'THEATRE')",
         "venue_capacity(37.5, 'banquet')", "venue_capacity(12, 'classroom')", "venue_capacity(0, 'standing')",
         "venue_capacity(333, 'theatre')"],
        hidden="""Standing events need 0.5 square metres per person. Theatre-style seating needs 0.8 square metres
            per person. Banquet seating needs 1.4 square metres per person. Any other layout needs 1.0 square
            metre per person. Layout names are matched ignoring case. I only use 90% of the floor area; 10% is
            kept clear for fire safety. Round the number of people down to a whole number.""",
        generic="""
            def venue_capacity(area_sqm, layout):
                per_person = {"standing": 0.3, "theatre": 0.6, "banquet": 1.2, "classroom": 1.5}.get(layout.lower(), 1.0)
                return int(area_sqm / per_person)
            """,
    ),
    _task(  # b041
        41,
        description="""I'm planning a wedding reception and want a function that assigns guests to tables. I pass the
            list of guest names and how many people fit at a table, and I want a dict from guest name to table
            number.""",
        ground_truth="""
            def assign_tables(guests, table_size):
                ordered = sorted(guests, key=lambda g: (g.split()[-1].lower(), g.lower()))
                seating = {}
                table, count = 1, 0
                for g in ordered:
                    if count == table_size:
                        table, count = table + 1, 0
                        if table == 13:
                            table = 14
                    seating[g] = table
                    count += 1
                return seating
            """,
        tests=["assign_tables(['Zoe Adams', 'Al Zane', 'Mia Cole'], 1)", "assign_tables(['Amy Brown', 'Carl Adams'], 1)",
         "assign_tables(['Zed Allen', 'Amy Allen', 'Bob Cole'], 2)", "assign_tables([], 8)",
         f"assign_tables({_ALL_GUESTS}, 1)", f"assign_tables({_ALL_GUESTS}, 4)",
         "assign_tables(['Cher'], 10)", "assign_tables(['Tom Young', 'Ann Young', 'Bill Xu', 'Cal West', 'Dee Vale'], 2)",
         "assign_tables(['Mary Ann Smith', 'John Smith', 'Li Ng'], 2)",
         "assign_tables(['Ed Day', 'Al Bay', 'Cy Fay', 'Di Hay'], 3)"],
        hidden="""Guests are seated in alphabetical order of their last name, which is the last word of the name;
            ties go by full name. Tables are filled one at a time, up to the table size, before starting the
            next. Tables are numbered from 1. Table number 13 is skipped because of superstition, so after table 12 comes table 14.""",
        generic="""
            def assign_tables(guests, table_size):
                return {g: i // table_size + 1 for i, g in enumerate(guests)}
            """,
    ),
    _task(  # b042
        42,
        description="""I sell tickets to our workshops and people sometimes cancel. I want a function that tells me how
            much to refund, given the ticket price and how many days before the event they cancelled.""",
        ground_truth="""
            def refund_amount(price, days_before):
                if days_before >= 30:
                    refund = price - 5
                elif days_before >= 14:
                    refund = price * 0.5
                elif days_before >= 7:
                    refund = price * 0.25
                else:
                    refund = 0.0
                return round(max(refund, 0.0), 2)
            """,
        tests=["refund_amount(50, 30)", "refund_amount(50, 29)", "refund_amount(50, 14)", "refund_amount(50, 13)",
         "refund_amount(50, 7)", "refund_amount(50, 6)", "refund_amount(4, 60)", "refund_amount(120.5, 100)",
         "refund_amount(33.33, 20)", "refund_amount(80, 0)"],
        hidden="""Cancelling 30 or more days before gives a full refund minus a 5 admin fee. 14 to 29 days before
            gives 50% back. 7 to 13 days before gives 25% back. Less than 7 days gives nothing back. The refund
            is never negative. Round the refund to 2 decimals.""",
        generic="""
            def refund_amount(price, days_before):
                if days_before >= 14:
                    return round(price, 2)
                if days_before >= 7:
                    return round(price * 0.5, 2)
                return 0.0
            """,
    ),
    _task(  # b043
        43,
        description="""I put on small music nights and want a function that builds the running order with start times.
            I pass a list of (act name, set length in minutes) and want a list of (act name, start time)
            back.""",
        ground_truth="""
            def stage_times(acts):
                if not acts:
                    return []
                longest = max(range(len(acts)), key=lambda i: (acts[i][1], -i))
                order = acts[:longest] + acts[longest + 1:] + [acts[longest]]
                t = 19 * 60 + 30
                out = []
                for name, minutes in order:
                    out.append((name, f"{(t // 60) % 24:02d}:{t % 60:02d}"))
                    t += minutes + 15
                return out
            """,
        tests=["stage_times([('Opener', 30), ('Main', 60)])", "stage_times([('Main', 60), ('Opener', 30)])",
         "stage_times([('Solo', 45)])", "stage_times([])",
         "stage_times([('A', 20), ('B', 40), ('C', 40)])", "stage_times([('Duo', 25), ('Trio', 35), ('Band', 90), ('DJ', 50)])",
         "stage_times([('X', 10), ('Y', 10), ('Z', 10)])", "stage_times([('Long', 200), ('Short', 100), ('Mid', 150)])",
         "stage_times([('Poet', 5), ('Choir', 20)])", "stage_times([('One', 60), ('Two', 55), ('Three', 50), ('Four', 45)])"],
        hidden="""The show starts at 19:30. There is a 15-minute changeover between acts. The headliner is the act
            with the longest set and always plays last; if two sets are equally long, the earlier one in the list
            is the headliner. The other acts keep the order I give them. Start times are 'HH:MM' in 24-hour
            format, going past midnight as 00:xx.""",
        generic="""
            def stage_times(acts):
                t = 20 * 60
                out = []
                for name, minutes in acts:
                    out.append((name, f"{(t // 60) % 24:02d}:{t % 60:02d}"))
                    t += minutes
                return out
            """,
    ),
    # ---------------------------------------------------------------- weather & energy
    _task(  # b044
        44,
        description="""I'm programming my smart thermostat and want a function that gives the target temperature for a
            given hour (0-23), day of the week (0 is Monday, 6 is Sunday) and whether someone is at home right
            now. The schedule is different on weekends.""",
        ground_truth="""
            def thermostat_target(hour, day, occupied):
                weekend = day >= 5
                if hour >= 23 or hour < 6:
                    temp = 17.5
                elif weekend:
                    temp = 21.0 if hour >= 8 else 17.5
                elif hour < 8 or hour >= 17:
                    temp = 21.0
                else:
                    temp = 16.0
                if occupied:
                    temp = max(temp, 20.0)
                return temp
            """,
        tests=["thermostat_target(3, 1, False)", "thermostat_target(6, 2, False)", "thermostat_target(12, 3, False)",
         "thermostat_target(12, 3, True)", "thermostat_target(18, 0, False)", "thermostat_target(7, 5, False)",
         "thermostat_target(9, 6, False)", "thermostat_target(23, 4, True)", "thermostat_target(22, 6, False)",
         "thermostat_target(8, 4, False)"],
        hidden="""At night, from 23:00 to 6:00, it is set to 17.5 degrees. On weekdays it is 21 from 6:00 to 8:00
            and from 17:00 to 23:00. On weekdays between 8:00 and 17:00 it drops to 16 because the house is
            usually empty. On weekends it stays at 17.5 until 8:00 and then 21 until 23:00. If someone is at
            home (occupied), the target is never below 20. Return the temperature as a float.""",
        generic="""
            def thermostat_target(hour, day, occupied):
                if 7 <= hour < 22:
                    return 20.0
                return 16.0
            """,
    ),
    _task(  # b045 (test)
        45,
        description="""I want a function that works out my monthly electricity bill from the number of kWh I used, using
            my supplier's tariff. The tariff has a few price steps.""",
        ground_truth="""
            def electricity_bill(kwh):
                cost = 9.50
                cost += min(kwh, 100) * 0.12
                cost += min(max(kwh - 100, 0), 200) * 0.18
                cost += max(kwh - 300, 0) * 0.25
                return round(cost, 2)
            """,
        tests=["electricity_bill(0)", "electricity_bill(50)", "electricity_bill(100)", "electricity_bill(101)",
         "electricity_bill(300)", "electricity_bill(301)", "electricity_bill(450)", "electricity_bill(1000)",
         "electricity_bill(123.4)", "electricity_bill(299.9)"],
        hidden="""The first 100 kWh cost 0.12 each. The next 200 kWh, from 100 to 300, cost 0.18 each. Every kWh
            above 300 costs 0.25. There is a fixed monthly charge of 9.50 on top. Round the bill to 2
            decimals.""",
        generic="""
            def electricity_bill(kwh):
                return round(kwh * 0.15, 2)
            """,
    ),
    _task(  # b046
        46,
        description="""I have solar panels and want a function that estimates my electricity bill for a billing period.
            I pass how many kWh my panels generated, how many kWh I used, and the number of days in the
            period.""",
        ground_truth="""
            def solar_bill(generated_kwh, used_kwh, days):
                net = used_kwh - generated_kwh
                energy = net * 0.22 if net > 0 else net * 0.05
                return round(max(days * 0.90 + energy, 0.0), 2)
            """,
        tests=["solar_bill(0, 100, 30)", "solar_bill(100, 100, 30)", "solar_bill(300, 100, 30)", "solar_bill(1000, 100, 30)",
         "solar_bill(250.5, 400.25, 31)", "solar_bill(0, 0, 0)", "solar_bill(50, 20, 1)", "solar_bill(120, 80, 28)",
         "solar_bill(10, 500, 90)", "solar_bill(600, 40, 10)"],
        hidden="""Energy I import from the grid, when I use more than I generate, costs 0.22 per kWh. Energy I
            export, when I generate more than I use, earns a credit of only 0.05 per kWh. There is a daily
            connection charge of 0.90. The bill never goes below 0; extra credit is just lost. Round the bill to
            2 decimals.""",
        generic="""
            def solar_bill(generated_kwh, used_kwh, days):
                return round((used_kwh - generated_kwh) * 0.22, 2)
            """,
    ),
    _task(  # b047
        47,
        description="""Every morning I want a quick answer about what to wear when I head out. The function takes the
            temperature in Celsius, the wind speed in km/h and the expected rain in mm, and returns a short
            piece of advice.""",
        ground_truth="""
            def outfit_advice(temp_c, wind_kmh, rain_mm):
                if rain_mm > 5 or wind_kmh > 40:
                    return "stay in"
                if rain_mm > 0:
                    return "raincoat"
                if temp_c < 12:
                    return "jacket"
                if temp_c < 22:
                    return "sweater"
                return "t-shirt"
            """,
        tests=["outfit_advice(15, 10, 6)", "outfit_advice(25, 41, 0)", "outfit_advice(25, 40, 0.5)", "outfit_advice(11.9, 5, 0)",
         "outfit_advice(12, 5, 0)", "outfit_advice(21.9, 5, 0)", "outfit_advice(22, 0, 0)", "outfit_advice(-3, 20, 5)",
         "outfit_advice(30, 60, 10)", "outfit_advice(5, 0, 0)"],
        hidden="""If rain is more than 5 mm or wind is more than 40 km/h, the answer is 'stay in'. Otherwise any rain
            at all means 'raincoat'. Otherwise below 12 degrees is 'jacket'. From 12 up to but not including 22
            degrees is 'sweater'. 22 degrees and above is 't-shirt'. The checks go in that order.""",
        generic="""
            def outfit_advice(temp_c, wind_kmh, rain_mm):
                if rain_mm > 0:
                    return "umbrella"
                if temp_c < 10:
                    return "coat"
                if temp_c < 18:
                    return "jacket"
                return "t-shirt"
            """,
    ),
    _task(  # b048
        48,
        description="""I track how much heating and cooling my house needs and want a function that computes degree days
            from a list of daily mean temperatures in Celsius. I want both heating and cooling numbers.""",
        ground_truth="""
            def degree_days(daily_means):
                heating = sum((15.5 - t for t in daily_means if t < 15.5), 0.0)
                cooling = sum((t - 22 for t in daily_means if t > 22), 0.0)
                return (round(heating, 1), round(cooling, 1))
            """,
        tests=["degree_days([10])", "degree_days([25])", "degree_days([18])", "degree_days([15.5, 22])",
         "degree_days([])", "degree_days([-2, 0, 3.5])", "degree_days([30, 28.4, 16])",
         "degree_days([14, 23, 19, 5])", "degree_days([15.4, 22.1])", "degree_days([12.25, 12.25, 24.75])"],
        hidden="""Heating degree days use a base of 15.5 degrees: each day below it adds the difference. Cooling
            degree days use a base of 22 degrees: each day above it adds the difference. Days between the two
            bases add nothing. Return both as a tuple (heating, cooling), each rounded to 1 decimal.""",
        generic="""
            def degree_days(daily_means):
                heating = sum(max(0, 18 - t) for t in daily_means)
                cooling = sum(max(0, t - 18) for t in daily_means)
                return (round(heating, 1), round(cooling, 1))
            """,
    ),
    _task(  # b049
        49,
        description="""I want to run my dishwasher and washing machine when electricity is cheapest. The function takes
            a list of 24 hourly prices (index 0 is midnight to 1am) and how many hours the appliance runs, and
            returns the best hour to start it.""",
        ground_truth="""
            def best_start_hour(prices, hours_needed):
                best_start, best_cost = -1, None
                for start in range(7, 23 - hours_needed + 1):
                    cost = round(sum(prices[start:start + hours_needed]), 6)
                    if best_cost is None or cost <= best_cost:
                        best_start, best_cost = start, cost
                return best_start
            """,
        tests=[f"best_start_hour({_PRICES_A!r}, 1)", f"best_start_hour({_PRICES_A!r}, 2)", f"best_start_hour({_PRICES_A!r}, 3)",
         f"best_start_hour({_PRICES_FLAT!r}, 2)", f"best_start_hour({_PRICES_FLAT!r}, 16)",
         f"best_start_hour({_PRICES_FLAT!r}, 17)", f"best_start_hour({_PRICES_B!r}, 2)", f"best_start_hour({_PRICES_B!r}, 4)",
         f"best_start_hour({_PRICES_B!r}, 1)", f"best_start_hour({_PRICES_A!r}, 5)"],
        hidden="""The appliance runs for a block of consecutive hours, and the best start is the one with the lowest
            total price over that block. It can't start before 7:00 because of the neighbours. It must finish by
            23:00. If several start hours cost the same, pick the latest one. If it can't fit, return -1.""",
        generic="""
            def best_start_hour(prices, hours_needed):
                best_start, best_cost = -1, None
                for start in range(0, 24 - hours_needed + 1):
                    cost = sum(prices[start:start + hours_needed])
                    if best_cost is None or cost < best_cost:
                        best_start, best_cost = start, cost
                return best_start
            """,
    ),
    # ---------------------------------------------------------------- library & media
    _task(  # b050 (test)
        50,
        description="""I volunteer at our village library and want a function that works out the late fine for a
            returned item from how many days late it is and the type of item. Different kinds of items are charged differently.""",
        ground_truth="""
            def library_fine(days_late, item_type):
                rates = {"book": 0.25, "dvd": 1.00, "magazine": 0.10}
                rate = rates.get(item_type.lower(), 0.25)
                charged = max(days_late - 2, 0)
                return round(min(charged * rate, 10.0), 2)
            """,
        tests=["library_fine(0, 'book')", "library_fine(2, 'dvd')", "library_fine(3, 'book')", "library_fine(10, 'DVD')",
         "library_fine(30, 'dvd')", "library_fine(7, 'magazine')", "library_fine(100, 'book')", "library_fine(5, 'audiobook')",
         "library_fine(42, 'Book')", "library_fine(1, 'magazine')"],
        hidden="""Books cost 0.25 per day late. DVDs cost 1.00 per day. Magazines cost 0.10 per day. Any other item
            type is charged like a book. Item types are matched ignoring case. There are 2 grace days that are
            never charged; only the days after them count. The fine per item is capped at 10.00. Round the fine
            to 2 decimals.""",
        generic="""
            def library_fine(days_late, item_type):
                rates = {"book": 0.25, "dvd": 1.00, "magazine": 0.25}
                return round(max(days_late, 0) * rates.get(item_type.lower(), 0.25), 2)
            """,
    ),
    _task(  # b051
        51,
        description="""I want a function that orders the songs for my radio show. Each track is a dict with 'title',
            'artist' and 'plays' (how often listeners requested it), and I want the list of titles in the order
            to play them.""",
        ground_truth="""
            def order_playlist(tracks):
                remaining = sorted(tracks, key=lambda t: (-t["plays"], t["title"]))
                out = []
                last_artist = None
                while remaining:
                    pick = next((t for t in remaining if t["artist"] != last_artist), remaining[0])
                    remaining.remove(pick)
                    out.append(pick["title"])
                    last_artist = pick["artist"]
                return out
            """,
        tests=["order_playlist([{'title': 'A', 'artist': 'X', 'plays': 5}, {'title': 'B', 'artist': 'Y', 'plays': 9}])",
         "order_playlist([{'title': 'A', 'artist': 'X', 'plays': 9}, {'title': 'B', 'artist': 'X', 'plays': 8}, {'title': 'C', 'artist': 'Y', 'plays': 1}])",
         "order_playlist([{'title': 'Zoo', 'artist': 'P', 'plays': 3}, {'title': 'Ant', 'artist': 'Q', 'plays': 3}])",
         "order_playlist([{'title': 'S1', 'artist': 'Solo', 'plays': 1}, {'title': 'S2', 'artist': 'Solo', 'plays': 2}])",
         "order_playlist([])",
         "order_playlist([{'title': 'a', 'artist': 'M', 'plays': 10}, {'title': 'b', 'artist': 'M', 'plays': 9}, {'title': 'c', 'artist': 'M', 'plays': 8}, {'title': 'd', 'artist': 'N', 'plays': 7}])",
         "order_playlist([{'title': 'Hey', 'artist': 'B', 'plays': 4}, {'title': 'Yo', 'artist': 'A', 'plays': 4}, {'title': 'Hi', 'artist': 'A', 'plays': 4}])",
         "order_playlist([{'title': 't1', 'artist': 'K', 'plays': 1}])",
         "order_playlist([{'title': 'x', 'artist': 'R', 'plays': 50}, {'title': 'y', 'artist': 'S', 'plays': 40}, {'title': 'z', 'artist': 'R', 'plays': 45}])",
         "order_playlist([{'title': 'Blue', 'artist': 'Q', 'plays': 2}, {'title': 'Red', 'artist': 'Q', 'plays': 2}, {'title': 'Gold', 'artist': 'W', 'plays': 2}, {'title': 'Jade', 'artist': 'W', 'plays': 1}])"],
        hidden="""Most-played songs come first. Ties in play count go alphabetically by title. Two songs by the same
            artist should never play back to back: if the next song would repeat the artist, take the
            highest-ranked remaining song by a different artist instead. If only songs by that same artist are
            left, just continue with them in order.""",
        generic="""
            def order_playlist(tracks):
                return [t["title"] for t in sorted(tracks, key=lambda t: -t["plays"])]
            """,
    ),
    _task(  # b052
        52,
        description="""My blog shows an estimated reading time at the top of each post. I want a function that takes the
            word count and the number of images in the post and returns the text to show.""",
        ground_truth="""
            def reading_time(word_count, image_count):
                import math
                seconds = word_count * 60 / 230 + image_count * 12
                minutes = max(1, math.ceil(seconds / 60))
                return f"{minutes} min read"
            """,
        tests=["reading_time(0, 0)", "reading_time(230, 0)", "reading_time(231, 0)", "reading_time(460, 5)",
         "reading_time(460, 6)", "reading_time(1000, 0)", "reading_time(100, 10)", "reading_time(2300, 2)",
         "reading_time(50, 0)", "reading_time(690, 15)"],
        hidden="""I assume people read 230 words per minute. Each image adds 12 seconds. Round the total up to whole
            minutes. The minimum is 1 minute. The result reads like '4 min read'.""",
        generic="""
            def reading_time(word_count, image_count):
                minutes = max(1, round(word_count / 200))
                return f"{minutes} min read"
            """,
    ),
    _task(  # b053
        53,
        description="""I want a function for our library's checkout desk that tells how many items a member may borrow
            right now, given their member type and how many overdue items they currently have. People with overdue items should get fewer.""",
        ground_truth="""
            def borrow_limit(member_type, overdue_items):
                base = {"adult": 8, "child": 4, "staff": 20}.get(member_type.lower(), 8)
                if overdue_items >= 3:
                    return 0
                if overdue_items > 0:
                    return base // 2
                return base
            """,
        tests=["borrow_limit('adult', 0)", "borrow_limit('child', 0)", "borrow_limit('staff', 0)", "borrow_limit('adult', 1)",
         "borrow_limit('Child', 2)", "borrow_limit('staff', 3)", "borrow_limit('visitor', 0)", "borrow_limit('ADULT', 2)",
         "borrow_limit('staff', 1)", "borrow_limit('child', 5)"],
        hidden="""Adults can borrow 8 items. Children can borrow 4. Staff can borrow 20. Member types are matched
            ignoring case, and unknown member types are treated as adults. With 1 or 2 overdue items the limit
            is halved, rounding down. With 3 or more overdue items the limit is 0.""",
        generic="""
            def borrow_limit(member_type, overdue_items):
                base = {"adult": 10, "child": 5, "staff": 20}.get(member_type.lower(), 10)
                return max(base - overdue_items, 0)
            """,
    ),
    # ---------------------------------------------------------------- logistics
    _task(  # b054
        54,
        description="""I ship products from my workshop and the courier charges by size class. I want a function that
            gives the size class of a parcel from its length, width, height and weight.""",
        ground_truth="""
            def package_class(length, width, height, weight):
                billable = max(weight, length * width * height / 5000)
                longest = max(length, width, height)
                if longest <= 30 and billable <= 2:
                    return "small"
                if longest <= 60 and billable <= 10:
                    return "medium"
                if longest <= 120 and billable <= 30:
                    return "large"
                return "freight"
            """,
        tests=["package_class(20, 15, 10, 1)", "package_class(30, 20, 20, 1)", "package_class(31, 10, 10, 1)",
         "package_class(40, 30, 30, 3)", "package_class(60, 40, 25, 3)", "package_class(25, 25, 20, 0.8)",
         "package_class(121, 10, 10, 5)", "package_class(50, 50, 50, 4)", "package_class(10, 10, 10, 2.5)",
         "package_class(110, 60, 40, 29)"],
        hidden="""Sizes are in cm and weight in kg. The weight used is the larger of the real weight and the
            volumetric weight, which is length times width times height divided by 5000. 'small' means the
            longest side is at most 30 and the weight at most 2. 'medium' means the longest side is at most 60
            and the weight at most 10. 'large' means the longest side is at most 120 and the weight at most 30.
            Anything bigger is 'freight'.""",
        generic="""
            def package_class(length, width, height, weight):
                if weight <= 1:
                    return "small"
                if weight <= 5:
                    return "medium"
                if weight <= 20:
                    return "large"
                return "freight"
            """,
    ),
    _task(  # b055 (test)
        55,
        description="""Customers on my web shop want to know when their order will arrive. I want a function that takes
            the day the order was placed and the hour (0-23) and returns the delivery day.""",
        ground_truth="""
            def delivery_day(order_day, order_hour):
                days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                i = days.index(order_day.strip().lower()[:3])
                if i >= 5:
                    i, business_days = 0, 1
                else:
                    business_days = 1 if order_hour < 14 else 2
                while business_days:
                    i = (i + 1) % 7
                    if i < 5:
                        business_days -= 1
                return days[i]
            """,
        tests=["delivery_day('mon', 10)", "delivery_day('mon', 14)", "delivery_day('thu', 13)", "delivery_day('thu', 15)",
         "delivery_day('fri', 9)", "delivery_day('fri', 14)", "delivery_day('sat', 8)", "delivery_day('Sun', 20)",
         "delivery_day('WED', 23)", "delivery_day('tue', 0)"],
        hidden="""Days are written as three-letter lowercase names, 'mon' to 'sun', and the input day may be in any
            case. Orders placed before 14:00 on a weekday are delivered the next business day. Orders at 14:00 or
            later take two business days. Nothing is delivered on Saturday or Sunday. Weekend orders are handled
            as if placed Monday morning, so they arrive on Tuesday.""",
        generic="""
            def delivery_day(order_day, order_hour):
                days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                i = days.index(order_day.strip().lower()[:3])
                return days[(i + 1) % 7]
            """,
    ),
]
"""The 55 part-B records, in id order (``b001`` ... ``b055``)."""


def render_jsonl(tasks: list[dict] | None = None) -> str:
    """The jsonl text of ``tasks`` (default :data:`TASKS`), one record per line."""
    return jsonl_text(TASKS if tasks is None else tasks)


def write_jsonl(path: str | Path | None = None) -> Path:
    """Write :data:`TASKS` to ``path`` (default :data:`DEFAULT_PATH`) and return the path."""
    return write_text(DEFAULT_PATH if path is None else path, render_jsonl())


def main(argv: list[str] | None = None) -> int:
    """``python -m colbench_env.data.authoring.backend_b [PATH]``: write the jsonl file."""
    return write_cli(argv, prog=__name__, write=write_jsonl, count=len(TASKS))


if __name__ == "__main__":
    raise SystemExit(main())
