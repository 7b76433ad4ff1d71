"""The embedded default ColBench frontend tasks, authored by hand.

Each task is an official ColBench frontend record plus our ``task_id`` and ``split`` fields::

    {"task_id": "f001", "split": "train", "problem_description": str, "ground_truth": "<html>...</html>"}

``problem_description`` is the human's vague request, in their own voice: the business, its
audience, the overall feel and a few sections, never the exact colours, layout or copy.
``ground_truth`` is the page the human has in mind: a complete HTML document that links the
Tailwind 2.2.19 stylesheet from :data:`TAILWIND_CDN` (exactly this URL), uses only Tailwind 2.2.19
utility classes, has no scripts, and whose only other external resources are
``https://picsum.photos/id/48/W/H`` images (ColBench normalises every picsum image to id 48).

Task ``i`` (1-based, in the order of :data:`PAGES`) gets the id ``f{i:03d}``; every fourth task
(``f004``, ``f008``, ...) is in the ``"test"`` split and the others in ``"train"``.

Regenerate the packaged file after editing a page::

    python -m colbench_env.data.authoring.frontend      # writes colbench_env/data/frontend/tasks.jsonl
"""
from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ...records import split_of as _split_every
from . import jsonl_text, words, write_cli, write_text

__all__ = ["TAILWIND_CDN", "DEFAULT_PATH", "AuthoredPage", "PAGES", "task_id", "split_of", "records",
           "render_jsonl", "write_jsonl", "main"]

TAILWIND_CDN = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
"""The only stylesheet a ground truth may link (the one ColBench ground truths use)."""

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "frontend" / "tasks.jsonl"
"""Where :func:`write_jsonl` writes by default: the packaged embedded frontend set."""


@dataclass(frozen=True)
class AuthoredPage:
    """One hand-written frontend task.

    Attributes:
        description: the human's vague one-paragraph request (the record's ``problem_description``).
        title: the document ``<title>``.
        body_class: Tailwind classes of ``<body>``.
        body: the inner HTML of ``<body>`` (indentation is normalised by :attr:`html`).
    """

    description: str
    title: str
    body_class: str
    body: str

    def __post_init__(self) -> None:
        for name in ("description", "title", "body_class", "body"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"AuthoredPage.{name} must be a non-empty string, got {value!r}")

    @property
    def html(self) -> str:
        """The complete ground-truth document."""
        body = textwrap.dedent(self.body).strip("\n")
        return (
            '<html lang="en">\n'
            "<head>\n"
            '  <meta charset="utf-8">\n'
            '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"  <title>{self.title}</title>\n"
            f'  <link href="{TAILWIND_CDN}" rel="stylesheet">\n'
            "</head>\n"
            f'<body class="{self.body_class}">\n'
            f"{body}\n"
            "</body>\n"
            "</html>"
        )


PAGES: tuple[AuthoredPage, ...] = (
    # f001 -- bakery: warm, split hero, product cards, hours
    AuthoredPage(
        description=words("""
            I own a small family bakery in our town's old market square and I'd like a website for it.
            It should feel warm and homely, like walking in first thing in the morning when the bread
            comes out of the oven. I want a welcoming top part that says who we are with a nice photo,
            a few of our best-loved bakes with their prices, something about our story and how we've
            been baking with the same sourdough starter for years, and our opening hours and address so
            people know when to drop by. Nothing flashy, just friendly."""),
        title="Crumb &amp; Co. Bakery",
        body_class="bg-yellow-50 text-gray-800 font-sans",
        body="""
            <header class="max-w-6xl mx-auto flex items-center justify-between px-6 py-5">
              <a href="#" class="text-2xl font-serif font-bold text-yellow-900">Crumb &amp; Co.</a>
              <nav class="space-x-6 text-sm font-medium text-yellow-900">
                <a href="#bakes" class="hover:text-yellow-600">Our Bakes</a>
                <a href="#story" class="hover:text-yellow-600">Story</a>
                <a href="#visit" class="hover:text-yellow-600">Visit</a>
              </nav>
            </header>
            <section class="max-w-6xl mx-auto grid md:grid-cols-2 gap-10 items-center px-6 py-12">
              <div>
                <p class="text-sm uppercase tracking-widest text-yellow-700 mb-3">Baked fresh since 1987</p>
                <h1 class="text-5xl font-serif font-bold text-yellow-900 leading-tight mb-6">Real bread, made slowly, every single morning.</h1>
                <p class="text-lg text-gray-700 mb-8">Sourdough loaves, flaky croissants and seasonal tarts from our little oven on Market Square.</p>
                <a href="#bakes" class="inline-block bg-yellow-800 text-white px-6 py-3 rounded-full font-semibold hover:bg-yellow-900">See today's bakes</a>
              </div>
              <img src="https://picsum.photos/id/48/640/480" alt="Fresh loaves on a wooden counter" class="rounded-3xl shadow-lg w-full h-96 object-cover">
            </section>
            <section id="bakes" class="bg-white py-16">
              <div class="max-w-6xl mx-auto px-6">
                <h2 class="text-3xl font-serif font-bold text-center text-yellow-900 mb-10">Customer favourites</h2>
                <div class="grid sm:grid-cols-3 gap-8">
                  <div class="bg-yellow-50 rounded-2xl overflow-hidden">
                    <img src="https://picsum.photos/id/48/400/260" alt="Country sourdough" class="w-full h-48 object-cover">
                    <div class="p-5"><h3 class="font-semibold text-lg">Country Sourdough</h3><p class="text-gray-600 text-sm mb-3">Three-day ferment, crackly crust.</p><span class="font-bold text-yellow-800">&pound;4.20</span></div>
                  </div>
                  <div class="bg-yellow-50 rounded-2xl overflow-hidden">
                    <img src="https://picsum.photos/id/48/400/260" alt="Butter croissants" class="w-full h-48 object-cover">
                    <div class="p-5"><h3 class="font-semibold text-lg">Butter Croissant</h3><p class="text-gray-600 text-sm mb-3">Laminated by hand with Normandy butter.</p><span class="font-bold text-yellow-800">&pound;2.10</span></div>
                  </div>
                  <div class="bg-yellow-50 rounded-2xl overflow-hidden">
                    <img src="https://picsum.photos/id/48/400/260" alt="Seasonal fruit tart" class="w-full h-48 object-cover">
                    <div class="p-5"><h3 class="font-semibold text-lg">Seasonal Fruit Tart</h3><p class="text-gray-600 text-sm mb-3">Whatever the orchard gives us this week.</p><span class="font-bold text-yellow-800">&pound;3.80</span></div>
                  </div>
                </div>
              </div>
            </section>
            <section id="story" class="max-w-3xl mx-auto text-center px-6 py-16">
              <h2 class="text-3xl font-serif font-bold text-yellow-900 mb-4">Our story</h2>
              <p class="text-gray-700 leading-relaxed">Grandma Rosa started Crumb &amp; Co. with one wood-fired oven and a sourdough starter she still calls Gerald. Three generations later we still mix every dough by hand, use flour from the mill down the road, and sell out most days before noon.</p>
            </section>
            <section id="visit" class="bg-yellow-900 text-yellow-50 py-12">
              <div class="max-w-6xl mx-auto px-6 grid sm:grid-cols-2 gap-8">
                <div><h3 class="text-xl font-serif font-bold mb-3">Opening hours</h3><p>Tuesday &ndash; Saturday: 7am &ndash; 3pm</p><p>Sunday: 8am &ndash; 1pm</p><p>Monday: closed</p></div>
                <div><h3 class="text-xl font-serif font-bold mb-3">Find us</h3><p>12 Market Square, Lowbridge</p><p>01632 960 412 &middot; hello@crumbandco.example</p></div>
              </div>
            </section>
            <footer class="text-center text-sm text-yellow-800 py-6">&copy; 2024 Crumb &amp; Co. Bakery</footer>
        """,
    ),
    # f002 -- law firm: navy, serif, practice areas, partners, contact band
    AuthoredPage(
        description=words("""
            We're a mid-sized law firm that handles business disputes, employment law and property
            matters for companies and private clients. Our current site looks like it was made in 2005.
            I want something that feels serious, established and trustworthy, the kind of page that
            makes a company director feel they're in safe hands. It should introduce the firm, list
            what areas of law we practise, show our senior partners with short bios, and make it easy
            to book a first consultation."""),
        title="Hargreave &amp; Lowe LLP",
        body_class="bg-white text-gray-800 font-serif",
        body="""
            <header class="bg-blue-900 text-white">
              <div class="max-w-6xl mx-auto flex items-center justify-between px-8 py-6">
                <div><span class="text-2xl tracking-wide">Hargreave &amp; Lowe</span><span class="block text-xs font-sans uppercase tracking-widest text-blue-200">Solicitors &middot; Est. 1962</span></div>
                <nav class="hidden md:flex space-x-8 font-sans text-sm text-blue-100">
                  <a href="#practice" class="hover:text-white">Practice Areas</a>
                  <a href="#partners" class="hover:text-white">Our Partners</a>
                  <a href="#contact" class="hover:text-white">Contact</a>
                </nav>
              </div>
            </header>
            <section class="bg-blue-900 text-white pb-24 pt-12">
              <div class="max-w-6xl mx-auto px-8">
                <h1 class="text-5xl leading-tight max-w-3xl mb-6">Clear counsel for the decisions that matter most.</h1>
                <p class="font-sans text-lg text-blue-100 max-w-2xl mb-10">For sixty years we have advised businesses, families and individuals across the region with rigour, discretion and plain English.</p>
                <a href="#contact" class="font-sans inline-block border border-yellow-400 text-yellow-300 px-8 py-3 hover:bg-yellow-400 hover:text-blue-900">Arrange a consultation</a>
              </div>
            </section>
            <section id="practice" class="max-w-6xl mx-auto px-8 -mt-12">
              <div class="bg-white shadow-xl grid md:grid-cols-3 divide-y md:divide-y-0 md:divide-x divide-gray-200">
                <div class="p-8"><h3 class="text-xl text-blue-900 mb-3">Commercial Litigation</h3><p class="font-sans text-sm text-gray-600 leading-relaxed">Contract disputes, shareholder claims and debt recovery, resolved in court or at the table.</p></div>
                <div class="p-8"><h3 class="text-xl text-blue-900 mb-3">Employment Law</h3><p class="font-sans text-sm text-gray-600 leading-relaxed">Advice for employers and employees on contracts, tribunals, restructuring and settlements.</p></div>
                <div class="p-8"><h3 class="text-xl text-blue-900 mb-3">Property &amp; Real Estate</h3><p class="font-sans text-sm text-gray-600 leading-relaxed">Commercial leases, acquisitions, planning and landlord&ndash;tenant disputes.</p></div>
              </div>
            </section>
            <section id="partners" class="max-w-6xl mx-auto px-8 py-20">
              <h2 class="text-3xl text-blue-900 mb-2">Our partners</h2>
              <div class="w-16 h-1 bg-yellow-400 mb-10"></div>
              <div class="grid md:grid-cols-3 gap-10">
                <div><img src="https://picsum.photos/id/48/400/460" alt="Eleanor Hargreave" class="w-full h-80 object-cover mb-4"><h3 class="text-xl">Eleanor Hargreave</h3><p class="font-sans text-sm text-yellow-700 mb-2">Senior Partner &middot; Litigation</p><p class="font-sans text-sm text-gray-600">Thirty years at the bar and in practice; ranked in Chambers for commercial disputes.</p></div>
                <div><img src="https://picsum.photos/id/48/400/460" alt="Marcus Lowe" class="w-full h-80 object-cover mb-4"><h3 class="text-xl">Marcus Lowe</h3><p class="font-sans text-sm text-yellow-700 mb-2">Partner &middot; Employment</p><p class="font-sans text-sm text-gray-600">Former in-house counsel who has guided over 200 companies through restructures.</p></div>
                <div><img src="https://picsum.photos/id/48/400/460" alt="Priya Natarajan" class="w-full h-80 object-cover mb-4"><h3 class="text-xl">Priya Natarajan</h3><p class="font-sans text-sm text-yellow-700 mb-2">Partner &middot; Property</p><p class="font-sans text-sm text-gray-600">Specialist in commercial leases and development sites across the North West.</p></div>
              </div>
            </section>
            <section id="contact" class="bg-gray-100 py-16">
              <div class="max-w-4xl mx-auto px-8 text-center">
                <h2 class="text-3xl text-blue-900 mb-4">Speak to a solicitor today</h2>
                <p class="font-sans text-gray-600 mb-8">Your first 30-minute consultation is free and completely confidential.</p>
                <div class="font-sans flex flex-col sm:flex-row justify-center gap-4">
                  <a href="#" class="bg-blue-900 text-white px-8 py-3 hover:bg-blue-800">Book online</a>
                  <a href="#" class="border border-blue-900 text-blue-900 px-8 py-3 hover:bg-white">Call 0161 496 0732</a>
                </div>
              </div>
            </section>
            <footer class="bg-blue-900 text-blue-200 font-sans text-xs py-6 text-center">Hargreave &amp; Lowe LLP is authorised and regulated by the Solicitors Regulation Authority. &copy; 2024</footer>
        """,
    ),
    # f003 -- yoga studio: soft green, centred hero, schedule, three plans
    AuthoredPage(
        description=words("""
            I teach yoga and recently opened my own small studio. I'd love a calm, airy website that
            feels like taking a deep breath: lots of space, gentle and natural, nothing loud. It should
            welcome beginners, show our weekly class timetable so people can plan their week, and list
            our membership options with prices. A short note about me as the teacher would be nice too."""),
        title="Still Water Yoga",
        body_class="bg-green-50 text-gray-700",
        body="""
            <nav class="max-w-5xl mx-auto flex justify-between items-center px-6 py-6">
              <span class="text-xl font-light tracking-widest text-green-800">STILL WATER</span>
              <div class="space-x-6 text-sm text-green-700"><a href="#classes">Classes</a><a href="#pricing">Pricing</a><a href="#about">About</a></div>
            </nav>
            <section class="text-center px-6 py-20">
              <h1 class="text-5xl font-light text-green-900 mb-6">Slow down. Breathe. Begin.</h1>
              <p class="max-w-xl mx-auto text-lg text-gray-600 mb-10">Small, friendly classes for every body, from your very first downward dog to a daily practice.</p>
              <a href="#pricing" class="bg-green-700 text-white rounded-full px-8 py-3 hover:bg-green-800">Try your first class free</a>
              <img src="https://picsum.photos/id/48/1100/420" alt="Sunlit studio with yoga mats" class="max-w-4xl w-full h-96 object-cover mx-auto mt-16 rounded-lg">
            </section>
            <section id="classes" class="max-w-4xl mx-auto px-6 py-12">
              <h2 class="text-3xl font-light text-green-900 text-center mb-8">Weekly timetable</h2>
              <table class="w-full bg-white rounded-lg overflow-hidden text-left text-sm">
                <thead class="bg-green-100 text-green-900"><tr><th class="px-6 py-3">Day</th><th class="px-6 py-3">Time</th><th class="px-6 py-3">Class</th><th class="px-6 py-3">Level</th></tr></thead>
                <tbody class="divide-y divide-green-50">
                  <tr><td class="px-6 py-3">Monday</td><td class="px-6 py-3">7:00 am</td><td class="px-6 py-3">Sunrise Flow</td><td class="px-6 py-3">All levels</td></tr>
                  <tr><td class="px-6 py-3">Tuesday</td><td class="px-6 py-3">6:30 pm</td><td class="px-6 py-3">Gentle Hatha</td><td class="px-6 py-3">Beginner</td></tr>
                  <tr><td class="px-6 py-3">Wednesday</td><td class="px-6 py-3">12:15 pm</td><td class="px-6 py-3">Lunchtime Stretch</td><td class="px-6 py-3">All levels</td></tr>
                  <tr><td class="px-6 py-3">Thursday</td><td class="px-6 py-3">6:30 pm</td><td class="px-6 py-3">Vinyasa</td><td class="px-6 py-3">Intermediate</td></tr>
                  <tr><td class="px-6 py-3">Saturday</td><td class="px-6 py-3">9:00 am</td><td class="px-6 py-3">Yin &amp; Restore</td><td class="px-6 py-3">All levels</td></tr>
                </tbody>
              </table>
            </section>
            <section id="pricing" class="max-w-5xl mx-auto px-6 py-16 grid md:grid-cols-3 gap-6">
              <div class="bg-white rounded-lg p-8 text-center"><h3 class="text-green-800 uppercase tracking-widest text-sm mb-4">Drop-in</h3><p class="text-4xl font-light text-gray-900 mb-4">$18</p><p class="text-sm text-gray-500">One class, any time.</p></div>
              <div class="bg-green-700 text-white rounded-lg p-8 text-center transform md:-translate-y-4"><h3 class="uppercase tracking-widest text-sm mb-4 text-green-100">10-Class Pass</h3><p class="text-4xl font-light mb-4">$150</p><p class="text-sm text-green-100">Valid for four months.</p></div>
              <div class="bg-white rounded-lg p-8 text-center"><h3 class="text-green-800 uppercase tracking-widest text-sm mb-4">Unlimited</h3><p class="text-4xl font-light text-gray-900 mb-4">$95<span class="text-base">/mo</span></p><p class="text-sm text-gray-500">Come as often as you like.</p></div>
            </section>
            <section id="about" class="max-w-3xl mx-auto px-6 py-16 flex flex-col sm:flex-row items-center gap-8">
              <img src="https://picsum.photos/id/48/200/200" alt="Teacher portrait" class="w-40 h-40 rounded-full object-cover">
              <p class="leading-relaxed">Hi, I'm Hana. I've taught yoga for twelve years and opened Still Water so that everyone, however stiff or busy, has a quiet place to move and rest. I can't wait to meet you on the mat.</p>
            </section>
            <footer class="text-center text-xs text-green-700 py-8">Still Water Yoga &middot; 48 Elm Street, Portland &middot; namaste@stillwater.example</footer>
        """,
    ),
    # f004 -- SaaS analytics: gradient hero, logo strip, features, pricing, 4-column footer
    AuthoredPage(
        description=words("""
            We're a startup with an analytics product that helps online shops understand where their
            revenue comes from. I need a landing page that feels modern, confident and techy, aimed at
            e-commerce founders and marketing teams. It should say what the product does in one punchy
            line, show a glimpse of the dashboard, mention a few companies that already use us, explain
            the main features, lay out our plans and prices, and end with the usual links at the bottom."""),
        title="Metricly &ndash; Revenue analytics for online stores",
        body_class="bg-white text-gray-900 antialiased",
        body="""
            <section class="bg-gradient-to-r from-indigo-600 to-purple-600 text-white">
              <nav class="max-w-6xl mx-auto flex items-center justify-between px-6 py-5">
                <span class="text-2xl font-extrabold">metricly</span>
                <div class="hidden md:flex items-center space-x-8 text-sm text-indigo-100"><a href="#features">Features</a><a href="#pricing">Pricing</a><a href="#">Docs</a><a href="#" class="bg-white text-indigo-700 font-semibold px-4 py-2 rounded-md">Start free trial</a></div>
              </nav>
              <div class="max-w-6xl mx-auto px-6 pt-16 pb-8 text-center">
                <h1 class="text-5xl md:text-6xl font-extrabold tracking-tight mb-6">Know exactly where every dollar comes from.</h1>
                <p class="text-xl text-indigo-100 max-w-2xl mx-auto mb-10">Metricly connects your store, ads and email in five minutes and shows true revenue attribution in one dashboard.</p>
                <div class="flex justify-center gap-4 mb-16"><a href="#" class="bg-white text-indigo-700 font-semibold px-6 py-3 rounded-md shadow">Start 14-day trial</a><a href="#" class="border border-indigo-200 px-6 py-3 rounded-md">Watch demo</a></div>
                <img src="https://picsum.photos/id/48/1000/520" alt="Metricly dashboard" class="w-full max-w-4xl h-96 object-cover mx-auto rounded-t-xl shadow-2xl">
              </div>
            </section>
            <section class="bg-gray-50 py-10">
              <p class="text-center text-xs uppercase tracking-widest text-gray-500 mb-6">Trusted by 2,400+ growing brands</p>
              <div class="max-w-4xl mx-auto flex flex-wrap justify-center gap-12 text-2xl font-bold text-gray-400"><span>Northwind</span><span>Lumen</span><span>Kettle&amp;Co</span><span>Brightside</span><span>Olio</span></div>
            </section>
            <section id="features" class="max-w-6xl mx-auto px-6 py-20 grid md:grid-cols-3 gap-12">
              <div><div class="w-12 h-12 rounded-lg bg-indigo-100 text-indigo-600 flex items-center justify-center font-bold mb-4">01</div><h3 class="text-xl font-bold mb-2">True attribution</h3><p class="text-gray-600">Multi-touch models that follow customers across devices, ads and email.</p></div>
              <div><div class="w-12 h-12 rounded-lg bg-purple-100 text-purple-600 flex items-center justify-center font-bold mb-4">02</div><h3 class="text-xl font-bold mb-2">Cohort insights</h3><p class="text-gray-600">See lifetime value by first product, channel or campaign at a glance.</p></div>
              <div><div class="w-12 h-12 rounded-lg bg-pink-100 text-pink-600 flex items-center justify-center font-bold mb-4">03</div><h3 class="text-xl font-bold mb-2">Daily digests</h3><p class="text-gray-600">A two-minute morning email with the numbers that moved and why.</p></div>
            </section>
            <section id="pricing" class="bg-gray-50 py-20">
              <h2 class="text-3xl font-extrabold text-center mb-12">Simple pricing that grows with you</h2>
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-3 gap-8">
                <div class="bg-white rounded-xl p-8 shadow-sm"><h3 class="font-semibold text-gray-500">Starter</h3><p class="text-4xl font-extrabold my-4">$49<span class="text-base font-normal text-gray-500">/mo</span></p><ul class="space-y-2 text-sm text-gray-600 mb-8"><li>Up to $50k monthly revenue</li><li>3 integrations</li><li>Email support</li></ul><a href="#" class="block text-center border border-indigo-600 text-indigo-600 rounded-md py-2">Choose Starter</a></div>
                <div class="bg-indigo-600 text-white rounded-xl p-8 shadow-xl ring-4 ring-indigo-200"><h3 class="font-semibold text-indigo-200">Growth</h3><p class="text-4xl font-extrabold my-4">$149<span class="text-base font-normal text-indigo-200">/mo</span></p><ul class="space-y-2 text-sm text-indigo-100 mb-8"><li>Up to $500k monthly revenue</li><li>Unlimited integrations</li><li>Cohorts and digests</li></ul><a href="#" class="block text-center bg-white text-indigo-700 font-semibold rounded-md py-2">Choose Growth</a></div>
                <div class="bg-white rounded-xl p-8 shadow-sm"><h3 class="font-semibold text-gray-500">Scale</h3><p class="text-4xl font-extrabold my-4">Custom</p><ul class="space-y-2 text-sm text-gray-600 mb-8"><li>Any revenue</li><li>Data warehouse export</li><li>Dedicated analyst</li></ul><a href="#" class="block text-center border border-indigo-600 text-indigo-600 rounded-md py-2">Talk to sales</a></div>
              </div>
            </section>
            <footer class="bg-gray-900 text-gray-400 text-sm">
              <div class="max-w-6xl mx-auto px-6 py-12 grid grid-cols-2 md:grid-cols-4 gap-8">
                <div><span class="text-white text-xl font-extrabold">metricly</span><p class="mt-2">Revenue clarity for online stores.</p></div>
                <div><h4 class="text-white font-semibold mb-3">Product</h4><ul class="space-y-2"><li>Features</li><li>Integrations</li><li>Pricing</li></ul></div>
                <div><h4 class="text-white font-semibold mb-3">Company</h4><ul class="space-y-2"><li>About</li><li>Careers</li><li>Blog</li></ul></div>
                <div><h4 class="text-white font-semibold mb-3">Support</h4><ul class="space-y-2"><li>Docs</li><li>Status</li><li>Contact</li></ul></div>
              </div>
              <p class="text-center text-xs border-t border-gray-800 py-6">&copy; 2024 Metricly Inc. All rights reserved.</p>
            </footer>
        """,
    ),
    # f005 -- dental clinic: light blue, hero with appointment card, four services, testimonial
    AuthoredPage(
        description=words("""
            I run a family dental practice and a lot of our patients are nervous about the dentist.
            I want a clean, reassuring website that feels fresh and gentle rather than clinical. People
            should be able to request an appointment straight from the top of the page, see the
            treatments we offer, read what a patient said about us, and find our address and phone
            number easily."""),
        title="Bright Smile Dental",
        body_class="bg-white text-gray-700",
        body="""
            <header class="border-b border-blue-100">
              <div class="max-w-6xl mx-auto flex items-center justify-between px-6 py-4">
                <span class="text-xl font-bold text-blue-600">Bright Smile <span class="font-light text-gray-500">Dental</span></span>
                <nav class="hidden md:flex items-center space-x-6 text-sm"><a href="#services">Treatments</a><a href="#reviews">Reviews</a><a href="#contact">Contact</a><a href="tel:+15550147" class="text-blue-600 font-semibold">(555) 014-7720</a></nav>
              </div>
            </header>
            <section class="bg-blue-50">
              <div class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-5 gap-10 items-center">
                <div class="md:col-span-3">
                  <h1 class="text-4xl md:text-5xl font-bold text-gray-900 mb-5">Gentle dental care for the whole family</h1>
                  <p class="text-lg mb-6">From first baby teeth to dental implants, we take our time, explain everything and never rush you.</p>
                  <ul class="space-y-2 text-sm"><li>&#10003; New patients welcome</li><li>&#10003; Evening and Saturday appointments</li><li>&#10003; Sedation available for anxious patients</li></ul>
                </div>
                <form class="md:col-span-2 bg-white rounded-2xl shadow-lg p-8 space-y-4">
                  <h2 class="text-xl font-semibold text-gray-900">Request an appointment</h2>
                  <input type="text" placeholder="Full name" class="w-full border border-gray-200 rounded-lg px-4 py-2">
                  <input type="tel" placeholder="Phone number" class="w-full border border-gray-200 rounded-lg px-4 py-2">
                  <select class="w-full border border-gray-200 rounded-lg px-4 py-2"><option>Check-up &amp; clean</option><option>Whitening</option><option>Emergency</option></select>
                  <button type="submit" class="w-full bg-blue-600 text-white font-semibold rounded-lg py-3 hover:bg-blue-700">Request a time</button>
                </form>
              </div>
            </section>
            <section id="services" class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold text-gray-900 text-center mb-12">Our treatments</h2>
              <div class="grid sm:grid-cols-2 lg:grid-cols-4 gap-6">
                <div class="border border-blue-100 rounded-xl p-6 hover:shadow-md"><div class="w-10 h-10 bg-blue-100 rounded-full mb-4"></div><h3 class="font-semibold text-gray-900 mb-2">Check-ups</h3><p class="text-sm">Thorough exams and hygienist cleans every six months.</p></div>
                <div class="border border-blue-100 rounded-xl p-6 hover:shadow-md"><div class="w-10 h-10 bg-blue-100 rounded-full mb-4"></div><h3 class="font-semibold text-gray-900 mb-2">Whitening</h3><p class="text-sm">Safe in-chair and take-home whitening kits.</p></div>
                <div class="border border-blue-100 rounded-xl p-6 hover:shadow-md"><div class="w-10 h-10 bg-blue-100 rounded-full mb-4"></div><h3 class="font-semibold text-gray-900 mb-2">Implants</h3><p class="text-sm">Permanent, natural-looking replacements for missing teeth.</p></div>
                <div class="border border-blue-100 rounded-xl p-6 hover:shadow-md"><div class="w-10 h-10 bg-blue-100 rounded-full mb-4"></div><h3 class="font-semibold text-gray-900 mb-2">Children's dentistry</h3><p class="text-sm">Fun, patient visits that build good habits early.</p></div>
              </div>
            </section>
            <section id="reviews" class="bg-blue-600 text-white py-16">
              <blockquote class="max-w-3xl mx-auto px-6 text-center">
                <p class="text-2xl font-light leading-relaxed mb-6">&ldquo;I hadn't been to a dentist in nine years because I was so scared. Dr. Okafor was patient and kind, and I actually look forward to my check-ups now.&rdquo;</p>
                <footer class="text-blue-100">&mdash; Sandra M., patient since 2019</footer>
              </blockquote>
            </section>
            <section id="contact" class="max-w-6xl mx-auto px-6 py-12 grid md:grid-cols-3 gap-6 text-sm">
              <div><h4 class="font-semibold text-gray-900 mb-1">Address</h4><p>220 Harbor Road, Suite 3<br>Bayview, CA 94016</p></div>
              <div><h4 class="font-semibold text-gray-900 mb-1">Hours</h4><p>Mon&ndash;Fri 8am&ndash;7pm<br>Sat 9am&ndash;2pm</p></div>
              <div><h4 class="font-semibold text-gray-900 mb-1">Call us</h4><p>(555) 014-7720<br>hello@brightsmile.example</p></div>
            </section>
            <footer class="bg-gray-50 text-center text-xs text-gray-400 py-6">&copy; 2024 Bright Smile Dental. All rights reserved.</footer>
        """,
    ),
    # f006 -- bike repair: black and yellow, bold uppercase, price list
    AuthoredPage(
        description=words("""
            I've got a bike repair workshop under a railway arch. Our customers are commuters,
            couriers and weekend riders. I want a website with attitude: bold, gritty and loud, like
            our shop, not some polished corporate thing. Put our name up front big, list our service
            packages and what they cost, explain that we do same-day fixes, show a picture of the
            workshop, and tell people where to find us."""),
        title="Spoke &amp; Chain Cycle Repairs",
        body_class="bg-black text-white font-sans",
        body="""
            <header class="flex justify-between items-center px-8 py-6 border-b-4 border-yellow-400">
              <span class="text-2xl font-black uppercase tracking-tighter">Spoke<span class="text-yellow-400">&amp;</span>Chain</span>
              <a href="#find" class="bg-yellow-400 text-black font-bold uppercase text-sm px-5 py-2">Find the arch</a>
            </header>
            <section class="px-8 py-24">
              <h1 class="text-7xl md:text-8xl font-black uppercase leading-none tracking-tighter">Broke it?<br><span class="text-yellow-400">We fix it.</span></h1>
              <p class="mt-8 text-xl text-gray-300 max-w-xl">Walk in before 10am, ride out by 6pm. Road, gravel, fixie, cargo, e-bike &ndash; if it has spokes, it's ours.</p>
            </section>
            <section class="bg-yellow-400 text-black px-8 py-16">
              <h2 class="text-4xl font-black uppercase mb-10">Service menu</h2>
              <div class="grid md:grid-cols-2 gap-x-16 gap-y-6 max-w-5xl">
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">Puncture fix</span><span class="font-black">&pound;12</span></div>
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">Brake bleed</span><span class="font-black">&pound;25</span></div>
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">Basic tune-up</span><span class="font-black">&pound;45</span></div>
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">Wheel true</span><span class="font-black">&pound;18</span></div>
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">Full strip &amp; rebuild</span><span class="font-black">&pound;140</span></div>
                <div class="flex justify-between border-b-2 border-black pb-2"><span class="font-bold uppercase">E-bike diagnostics</span><span class="font-black">&pound;35</span></div>
              </div>
            </section>
            <section class="grid md:grid-cols-2">
              <img src="https://picsum.photos/id/48/800/600" alt="The workshop under the arch" class="w-full h-96 object-cover">
              <div class="p-12 flex flex-col justify-center">
                <h2 class="text-4xl font-black uppercase mb-4">Same-day or it's free</h2>
                <p class="text-gray-300 mb-6">Three mechanics, two stands each, zero waiting lists. If your standard repair isn't ready by closing, the labour is on us.</p>
                <p class="text-yellow-400 font-bold uppercase tracking-widest text-sm">Courier discount: 20% off with your badge</p>
              </div>
            </section>
            <section id="find" class="px-8 py-16 grid sm:grid-cols-3 gap-8 uppercase">
              <div><p class="text-yellow-400 font-bold text-sm mb-2">Where</p><p class="text-2xl font-black">Arch 14, Druid St</p><p class="text-gray-400 normal-case">London SE1</p></div>
              <div><p class="text-yellow-400 font-bold text-sm mb-2">When</p><p class="text-2xl font-black">Mon&ndash;Sat 8&ndash;6</p><p class="text-gray-400 normal-case">Sunday: riding, not fixing</p></div>
              <div><p class="text-yellow-400 font-bold text-sm mb-2">Shout</p><p class="text-2xl font-black">020 7946 0018</p><p class="text-gray-400 normal-case">fix@spokeandchain.example</p></div>
            </section>
            <footer class="border-t border-gray-800 px-8 py-6 text-xs text-gray-500 uppercase tracking-widest">Spoke &amp; Chain &middot; Keeping London rolling since 2011</footer>
        """,
    ),
    # f007 -- architecture firm: minimal white, big type, asymmetric project gallery
    AuthoredPage(
        description=words("""
            I'm a partner in a small architecture practice that designs houses, libraries and
            workplaces. Our website should feel like our buildings: minimal, precise, restrained,
            with plenty of empty space and the work doing the talking. I'd like a short statement of
            what we believe, a showcase of selected projects with their names and locations, a line
            about our studio and awards, and a quiet way to get in touch."""),
        title="Linea Studio &mdash; Architecture",
        body_class="bg-white text-black",
        body="""
            <header class="max-w-7xl mx-auto flex justify-between items-baseline px-10 pt-10">
              <span class="text-sm font-semibold tracking-widest">LINEA STUDIO</span>
              <nav class="space-x-10 text-sm text-gray-500"><a href="#work" class="hover:text-black">Work</a><a href="#studio" class="hover:text-black">Studio</a><a href="#contact" class="hover:text-black">Contact</a></nav>
            </header>
            <section class="max-w-7xl mx-auto px-10 pt-32 pb-24">
              <h1 class="text-6xl font-light leading-tight max-w-4xl">We design quiet buildings that make room for people, light and time.</h1>
            </section>
            <section id="work" class="max-w-7xl mx-auto px-10 grid grid-cols-3 gap-6">
              <figure class="col-span-2"><img src="https://picsum.photos/id/48/900/560" alt="Harbour Library" class="w-full h-96 object-cover"><figcaption class="flex justify-between text-sm mt-3"><span>Harbour Library</span><span class="text-gray-400">Aarhus, 2023</span></figcaption></figure>
              <figure><img src="https://picsum.photos/id/48/440/560" alt="Stone House" class="w-full h-96 object-cover"><figcaption class="flex justify-between text-sm mt-3"><span>Stone House</span><span class="text-gray-400">Porto, 2022</span></figcaption></figure>
              <figure><img src="https://picsum.photos/id/48/440/560" alt="Atelier Nord" class="w-full h-96 object-cover"><figcaption class="flex justify-between text-sm mt-3"><span>Atelier Nord</span><span class="text-gray-400">Oslo, 2021</span></figcaption></figure>
              <figure class="col-span-2"><img src="https://picsum.photos/id/48/900/560" alt="Canal Offices" class="w-full h-96 object-cover"><figcaption class="flex justify-between text-sm mt-3"><span>Canal Offices</span><span class="text-gray-400">Amsterdam, 2020</span></figcaption></figure>
            </section>
            <section class="max-w-7xl mx-auto px-10 pt-32 grid md:grid-cols-3 gap-12 text-sm">
              <div class="border-t border-gray-300 pt-4"><p class="text-gray-400 mb-2">01</p><p class="font-semibold mb-1">Architecture</p><p class="text-gray-500">Public buildings, workplaces and private houses, from feasibility to completion.</p></div>
              <div class="border-t border-gray-300 pt-4"><p class="text-gray-400 mb-2">02</p><p class="font-semibold mb-1">Interiors</p><p class="text-gray-500">Furniture, lighting and material studies developed with local makers.</p></div>
              <div class="border-t border-gray-300 pt-4"><p class="text-gray-400 mb-2">03</p><p class="font-semibold mb-1">Masterplanning</p><p class="text-gray-500">Long-term plans for campuses, harbours and neighbourhoods.</p></div>
            </section>
            <section id="studio" class="max-w-7xl mx-auto px-10 py-32 grid md:grid-cols-2 gap-20">
              <p class="text-2xl font-light leading-relaxed">Founded in 2009 by Ines Varela and Jonas Ek, Linea is a studio of eighteen architects working from a former printworks in Copenhagen.</p>
              <div class="text-sm text-gray-500 space-y-3">
                <p class="text-black font-semibold">Recognition</p>
                <p>Mies van der Rohe Award, shortlist &mdash; 2023</p>
                <p>RIBA International Prize &mdash; 2021</p>
                <p>Danish Daylight Award &mdash; 2019</p>
              </div>
            </section>
            <footer id="contact" class="max-w-7xl mx-auto px-10 py-16 border-t border-black flex flex-col md:flex-row justify-between text-sm">
              <span>Refshalevej 163, Copenhagen</span>
              <a href="mailto:studio@linea.example" class="underline">studio@linea.example</a>
              <span class="text-gray-400">&copy; Linea Studio ApS</span>
            </footer>
        """,
    ),
    # f008 -- charity: hero image with overlay, stats, donation tiers, stories
    AuthoredPage(
        description=words("""
            I volunteer for a charity that builds wells and water filters for villages that don't
            have clean drinking water. We need a website that moves people to give. It should open
            with a powerful image and our mission, show a few numbers about what we've achieved,
            let people choose how much to donate and what that money pays for, share a couple of
            stories from communities we've helped, and invite people to sign up for updates."""),
        title="Clean Water Now",
        body_class="bg-white text-gray-800",
        body="""
            <section class="relative">
              <img src="https://picsum.photos/id/48/1400/800" alt="Children at a new water pump" class="absolute inset-0 w-full h-full object-cover">
              <div class="absolute inset-0 bg-blue-900 bg-opacity-60"></div>
              <nav class="relative z-10 max-w-5xl mx-auto flex justify-between items-center px-6 py-6 text-white"><span class="font-bold text-xl">Clean Water Now</span><a href="#donate" class="bg-yellow-400 text-blue-900 font-bold px-5 py-2 rounded">Donate</a></nav>
              <div class="relative z-10 max-w-5xl mx-auto px-6 pt-20 pb-32 flex flex-col text-white">
                <h1 class="text-5xl md:text-6xl font-extrabold max-w-3xl leading-tight mb-6">785 million people still walk hours for water.</h1>
                <p class="text-xl max-w-2xl mb-8">We work with local engineers to build wells that villages own, repair and keep running for decades.</p>
                <a href="#donate" class="self-start bg-yellow-400 text-blue-900 font-bold text-lg px-8 py-4 rounded hover:bg-yellow-300">Give clean water</a>
              </div>
            </section>
            <section class="bg-blue-600 text-white py-12">
              <div class="max-w-5xl mx-auto grid grid-cols-3 text-center">
                <div><p class="text-4xl font-extrabold">1,240</p><p class="text-blue-100">wells built</p></div>
                <div><p class="text-4xl font-extrabold">612,000</p><p class="text-blue-100">people served</p></div>
                <div><p class="text-4xl font-extrabold">96%</p><p class="text-blue-100">still working today</p></div>
              </div>
            </section>
            <section id="donate" class="max-w-5xl mx-auto px-6 py-20 text-center">
              <h2 class="text-3xl font-extrabold mb-3">Choose your impact</h2>
              <p class="text-gray-500 mb-10">100% of public donations fund water projects. Our running costs are covered by private backers.</p>
              <div class="grid md:grid-cols-3 gap-6">
                <div class="border-2 border-gray-200 rounded-lg p-8 hover:border-blue-600"><p class="text-4xl font-extrabold text-blue-600">$30</p><p class="mt-3">Provides one person with clean water for life.</p></div>
                <div class="border-2 border-blue-600 bg-blue-50 rounded-lg p-8"><p class="text-4xl font-extrabold text-blue-600">$120</p><p class="mt-3">Trains a local well mechanic for a year.</p></div>
                <div class="border-2 border-gray-200 rounded-lg p-8 hover:border-blue-600"><p class="text-4xl font-extrabold text-blue-600">$500</p><p class="mt-3">Funds a household filter for twenty families.</p></div>
              </div>
              <a href="#" class="inline-block mt-10 bg-blue-600 text-white font-bold px-10 py-4 rounded hover:bg-blue-700">Donate now</a>
            </section>
            <section class="bg-gray-100 py-20">
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-2 gap-10">
                <article class="bg-white rounded-lg overflow-hidden shadow"><img src="https://picsum.photos/id/48/600/340" alt="Amina at the well" class="w-full h-56 object-cover"><div class="p-6"><h3 class="font-bold text-xl mb-2">Amina's walk got shorter</h3><p class="text-gray-600">In Kibera village, Amina used to spend four hours a day fetching water. Now she spends them in school.</p></div></article>
                <article class="bg-white rounded-lg overflow-hidden shadow"><img src="https://picsum.photos/id/48/600/340" alt="Village water committee" class="w-full h-56 object-cover"><div class="p-6"><h3 class="font-bold text-xl mb-2">A committee that keeps it flowing</h3><p class="text-gray-600">The water committee in Dodoma has kept their pump running for eleven years with local spare parts.</p></div></article>
              </div>
            </section>
            <section class="max-w-xl mx-auto px-6 py-16 text-center">
              <h2 class="text-2xl font-extrabold mb-4">Get updates from the field</h2>
              <form class="flex"><input type="email" placeholder="Your email" class="flex-1 border border-gray-300 rounded-l px-4 py-3"><button class="bg-blue-600 text-white font-bold px-6 rounded-r">Subscribe</button></form>
            </section>
            <footer class="bg-blue-900 text-blue-200 text-sm text-center py-6">Clean Water Now is a registered charity (No. 1187342). &copy; 2024</footer>
        """,
    ),
    # f009 -- coffee roaster: dark, product cards with origins, subscription band
    AuthoredPage(
        description=words("""
            We roast specialty coffee in small batches and sell beans online and to local cafés. I'd
            like a website that feels rich, dark and a bit luxurious, like the smell of fresh roasting.
            It should introduce the roastery, show our current single-origin coffees with tasting notes
            and prices, push our monthly coffee subscription, and explain briefly how we source from
            farmers. Coffee nerds are our main audience but it shouldn't scare off beginners."""),
        title="Ember Roasting Co.",
        body_class="bg-gray-900 text-gray-200",
        body="""
            <header class="max-w-6xl mx-auto flex justify-between items-center px-6 py-6">
              <span class="text-yellow-500 text-xl font-bold tracking-widest uppercase">Ember</span>
              <nav class="space-x-8 text-sm uppercase tracking-wider"><a href="#coffee" class="hover:text-yellow-500">Coffee</a><a href="#subscribe" class="hover:text-yellow-500">Subscribe</a><a href="#sourcing" class="hover:text-yellow-500">Sourcing</a></nav>
              <a href="#" class="border border-yellow-500 text-yellow-500 text-sm px-4 py-2 rounded">Cart (0)</a>
            </header>
            <section class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-12 items-center">
              <img src="https://picsum.photos/id/48/600/600" alt="Freshly roasted beans" class="w-full h-96 object-cover rounded-lg opacity-90">
              <div>
                <p class="text-yellow-500 uppercase tracking-widest text-sm mb-4">Small-batch roastery &middot; Bristol</p>
                <h1 class="text-5xl font-bold text-white leading-tight mb-6">Coffee roasted on Monday, in your cup by Wednesday.</h1>
                <p class="text-gray-400 text-lg mb-8">We roast twelve kilos at a time on a 1962 Probat drum, so every bag is at its peak when it reaches you.</p>
                <a href="#coffee" class="bg-yellow-500 text-gray-900 font-bold px-8 py-3 rounded hover:bg-yellow-400">Shop current roasts</a>
              </div>
            </section>
            <section id="coffee" class="bg-gray-800 py-20">
              <div class="max-w-6xl mx-auto px-6">
                <h2 class="text-3xl font-bold text-white mb-10">This month's single origins</h2>
                <div class="grid sm:grid-cols-2 lg:grid-cols-4 gap-6">
                  <div class="bg-gray-900 rounded-lg p-6"><p class="text-xs uppercase tracking-widest text-yellow-500">Ethiopia</p><h3 class="text-xl font-semibold text-white mt-1 mb-3">Guji Hambela</h3><p class="text-sm text-gray-400 mb-6">Peach, jasmine, bergamot</p><div class="flex justify-between items-center"><span class="font-bold">&pound;11.50</span><span class="text-xs bg-gray-700 rounded px-2 py-1">Light</span></div></div>
                  <div class="bg-gray-900 rounded-lg p-6"><p class="text-xs uppercase tracking-widest text-yellow-500">Colombia</p><h3 class="text-xl font-semibold text-white mt-1 mb-3">Finca La Esperanza</h3><p class="text-sm text-gray-400 mb-6">Red apple, caramel, cocoa</p><div class="flex justify-between items-center"><span class="font-bold">&pound;10.00</span><span class="text-xs bg-gray-700 rounded px-2 py-1">Medium</span></div></div>
                  <div class="bg-gray-900 rounded-lg p-6"><p class="text-xs uppercase tracking-widest text-yellow-500">Kenya</p><h3 class="text-xl font-semibold text-white mt-1 mb-3">Kiambu AA</h3><p class="text-sm text-gray-400 mb-6">Blackcurrant, grapefruit, brown sugar</p><div class="flex justify-between items-center"><span class="font-bold">&pound;12.50</span><span class="text-xs bg-gray-700 rounded px-2 py-1">Light</span></div></div>
                  <div class="bg-gray-900 rounded-lg p-6"><p class="text-xs uppercase tracking-widest text-yellow-500">Brazil</p><h3 class="text-xl font-semibold text-white mt-1 mb-3">Sítio Boa Vista</h3><p class="text-sm text-gray-400 mb-6">Hazelnut, milk chocolate, toffee</p><div class="flex justify-between items-center"><span class="font-bold">&pound;9.50</span><span class="text-xs bg-gray-700 rounded px-2 py-1">Dark</span></div></div>
                </div>
              </div>
            </section>
            <section id="subscribe" class="max-w-6xl mx-auto px-6 py-20">
              <div class="bg-yellow-500 text-gray-900 rounded-2xl p-12 md:flex items-center justify-between">
                <div class="mb-6 md:mb-0"><h2 class="text-3xl font-bold mb-2">The Ember Subscription</h2><p class="text-lg">A different single origin every month, roasted to order. From &pound;9 a bag, skip or cancel any time.</p></div>
                <a href="#" class="bg-gray-900 text-yellow-500 font-bold px-8 py-4 rounded whitespace-nowrap">Start subscribing</a>
              </div>
            </section>
            <section id="sourcing" class="max-w-4xl mx-auto px-6 pb-20 text-center">
              <h2 class="text-3xl font-bold text-white mb-4">Direct from the farm</h2>
              <p class="text-gray-400 leading-relaxed">We buy from eleven farms we visit in person and pay on average 2.4 times the Fairtrade minimum. Every bag lists the farmer, the altitude and the price we paid.</p>
            </section>
            <footer class="border-t border-gray-800 py-8 text-center text-sm text-gray-500">Ember Roasting Co. &middot; Unit 4, Cheese Lane, Bristol &middot; &copy; 2024</footer>
        """,
    ),
    # f010 -- travel agency: full-bleed hero with search, destination cards, newsletter
    AuthoredPage(
        description=words("""
            I run a boutique travel agency that plans tailor-made holidays for couples and families.
            The website should make people want to pack their bags straight away: bright, sunny,
            adventurous but still premium. I'd like a big inspiring opening with a way to search for
            trips, some featured destinations with how long the trip is and a starting price, a few
            reasons to book with us rather than online, and a newsletter sign-up for travel deals."""),
        title="Wayfarer Journeys",
        body_class="bg-white text-gray-800",
        body="""
            <section class="relative text-white">
              <img src="https://picsum.photos/id/48/1600/900" alt="Turquoise bay at sunrise" class="absolute inset-0 w-full h-full object-cover">
              <div class="absolute inset-0 bg-gradient-to-b from-black to-transparent opacity-60"></div>
              <div class="relative max-w-6xl mx-auto px-6">
                <nav class="flex justify-between items-center py-6"><span class="text-2xl font-bold">Wayfarer<span class="text-yellow-300">.</span></span><div class="space-x-6 text-sm"><a href="#destinations">Destinations</a><a href="#why">Why us</a><a href="#" class="bg-white text-gray-900 rounded-full px-4 py-2">Plan my trip</a></div></nav>
                <div class="py-32 text-center">
                  <h1 class="text-6xl font-bold mb-4">The world, made personal.</h1>
                  <p class="text-xl mb-10">Hand-crafted holidays designed around you by travel experts who have been there.</p>
                  <form class="bg-white rounded-full shadow-2xl max-w-3xl mx-auto flex items-center p-2 text-gray-700">
                    <input type="text" placeholder="Where to?" class="flex-1 px-6 py-3 rounded-full focus:outline-none">
                    <input type="text" placeholder="When?" class="w-40 px-4 py-3 border-l border-gray-200 focus:outline-none">
                    <button class="bg-pink-500 hover:bg-pink-600 text-white font-semibold px-8 py-3 rounded-full">Search</button>
                  </form>
                </div>
              </div>
            </section>
            <section id="destinations" class="max-w-6xl mx-auto px-6 py-20">
              <div class="flex justify-between items-end mb-10"><h2 class="text-3xl font-bold">Featured escapes</h2><a href="#" class="text-pink-500 font-semibold">View all &rarr;</a></div>
              <div class="grid md:grid-cols-3 gap-8">
                <div class="rounded-2xl overflow-hidden shadow-lg"><img src="https://picsum.photos/id/48/500/340" alt="Kyoto" class="w-full h-56 object-cover"><div class="p-6"><div class="flex justify-between text-sm text-gray-500 mb-1"><span>Japan</span><span>12 nights</span></div><h3 class="text-xl font-bold mb-3">Kyoto &amp; the Japanese Alps</h3><p class="text-pink-500 font-bold">from $4,290 pp</p></div></div>
                <div class="rounded-2xl overflow-hidden shadow-lg"><img src="https://picsum.photos/id/48/500/340" alt="Amalfi" class="w-full h-56 object-cover"><div class="p-6"><div class="flex justify-between text-sm text-gray-500 mb-1"><span>Italy</span><span>8 nights</span></div><h3 class="text-xl font-bold mb-3">Amalfi Coast by Boat</h3><p class="text-pink-500 font-bold">from $3,150 pp</p></div></div>
                <div class="rounded-2xl overflow-hidden shadow-lg"><img src="https://picsum.photos/id/48/500/340" alt="Patagonia" class="w-full h-56 object-cover"><div class="p-6"><div class="flex justify-between text-sm text-gray-500 mb-1"><span>Chile</span><span>14 nights</span></div><h3 class="text-xl font-bold mb-3">Patagonia Wild Trails</h3><p class="text-pink-500 font-bold">from $5,480 pp</p></div></div>
              </div>
            </section>
            <section id="why" class="bg-yellow-50 py-20">
              <div class="max-w-6xl mx-auto px-6 grid md:grid-cols-4 gap-8 text-center">
                <div><p class="text-4xl font-bold text-pink-500 mb-2">25</p><p class="font-semibold">years planning trips</p></div>
                <div><p class="text-4xl font-bold text-pink-500 mb-2">24/7</p><p class="font-semibold">support while you travel</p></div>
                <div><p class="text-4xl font-bold text-pink-500 mb-2">90+</p><p class="font-semibold">countries explored</p></div>
                <div><p class="text-4xl font-bold text-pink-500 mb-2">100%</p><p class="font-semibold">financially protected</p></div>
              </div>
            </section>
            <section class="max-w-2xl mx-auto px-6 py-20 text-center">
              <h2 class="text-3xl font-bold mb-3">Travel inspiration, monthly</h2>
              <p class="text-gray-500 mb-8">Hidden gems, early-bird offers and stories from the road.</p>
              <form class="flex flex-col sm:flex-row gap-3"><input type="email" placeholder="you@example.com" class="flex-1 border border-gray-300 rounded-full px-6 py-3"><button class="bg-gray-900 text-white rounded-full px-8 py-3">Sign me up</button></form>
            </section>
            <footer class="bg-gray-900 text-gray-400 text-sm py-8 text-center">Wayfarer Journeys Ltd &middot; ATOL 11842 &middot; &copy; 2024</footer>
        """,
    ),
    # f011 -- plumbing: emergency bar, services, reasons, giant phone CTA
    AuthoredPage(
        description=words("""
            My company does plumbing and heating for homes and small businesses around the city, and
            a lot of our calls are emergencies like burst pipes or a dead boiler. The website needs to
            be practical and to the point: the phone number impossible to miss, a list of the jobs we
            do, why people can trust us (licensed, fixed prices, no call-out fee), some reviews, and
            the areas we cover. It should feel dependable and no-nonsense."""),
        title="FlowRight Plumbing &amp; Heating",
        body_class="bg-gray-50 text-gray-800",
        body="""
            <div class="bg-red-600 text-white text-center text-sm font-semibold py-2">24-hour emergency call-outs &mdash; call 0800 555 0199 now</div>
            <header class="bg-white shadow">
              <div class="max-w-6xl mx-auto flex items-center justify-between px-6 py-4">
                <span class="text-2xl font-extrabold text-blue-800">Flow<span class="text-red-600">Right</span></span>
                <a href="tel:08005550199" class="bg-red-600 hover:bg-red-700 text-white font-bold px-6 py-3 rounded">0800 555 0199</a>
              </div>
            </header>
            <section class="bg-blue-800 text-white">
              <div class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-8 items-center">
                <div>
                  <h1 class="text-4xl md:text-5xl font-extrabold mb-4">Leaks, boilers, blockages. Sorted today.</h1>
                  <p class="text-lg text-blue-100 mb-6">Gas Safe registered engineers across Leeds and Bradford, with fixed quotes before we start.</p>
                  <div class="flex space-x-4"><a href="#" class="bg-white text-blue-800 font-bold px-6 py-3 rounded">Get a free quote</a><a href="#services" class="border border-white px-6 py-3 rounded">Our services</a></div>
                </div>
                <img src="https://picsum.photos/id/48/560/380" alt="Engineer fixing a boiler" class="w-full h-80 object-cover rounded">
              </div>
            </section>
            <section id="services" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-extrabold text-blue-800 mb-8">What we fix</h2>
              <div class="grid grid-cols-2 md:grid-cols-3 gap-4">
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Burst &amp; leaking pipes</h3><p class="text-sm text-gray-600">Isolated and repaired, usually within two hours.</p></div>
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Boiler repair &amp; service</h3><p class="text-sm text-gray-600">All major makes, annual services from &pound;79.</p></div>
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Blocked drains</h3><p class="text-sm text-gray-600">Jetting and CCTV drain surveys.</p></div>
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Bathroom fitting</h3><p class="text-sm text-gray-600">Full refits from design to final tile.</p></div>
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Radiators &amp; heating</h3><p class="text-sm text-gray-600">Power flushes, new radiators, smart thermostats.</p></div>
                <div class="bg-white border-l-4 border-red-600 p-5 shadow-sm"><h3 class="font-bold">Landlord certificates</h3><p class="text-sm text-gray-600">Gas safety checks and paperwork done same week.</p></div>
              </div>
            </section>
            <section class="bg-white py-16">
              <div class="max-w-6xl mx-auto px-6 grid md:grid-cols-3 gap-10">
                <div><h3 class="text-xl font-extrabold text-blue-800 mb-2">No call-out fee</h3><p class="text-gray-600">You only pay for the work, never for us turning up.</p></div>
                <div><h3 class="text-xl font-extrabold text-blue-800 mb-2">Fixed, written prices</h3><p class="text-gray-600">The quote you agree is the price you pay. No surprises.</p></div>
                <div><h3 class="text-xl font-extrabold text-blue-800 mb-2">12-month guarantee</h3><p class="text-gray-600">Every repair is covered for parts and labour for a full year.</p></div>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-6">
              <div class="bg-white p-6 rounded shadow-sm"><p class="text-yellow-500 mb-2">&#9733;&#9733;&#9733;&#9733;&#9733;</p><p class="text-gray-700 mb-3">Boiler died on Christmas Eve. Dave was here in 40 minutes and had the heating back on by tea time. Legend.</p><p class="text-sm font-bold">&mdash; Helen, Headingley</p></div>
              <div class="bg-white p-6 rounded shadow-sm"><p class="text-yellow-500 mb-2">&#9733;&#9733;&#9733;&#9733;&#9733;</p><p class="text-gray-700 mb-3">Honest quote, tidy work, and they actually turned up when they said they would.</p><p class="text-sm font-bold">&mdash; Raj, Horsforth</p></div>
            </section>
            <section class="bg-red-600 text-white text-center py-14">
              <p class="uppercase tracking-widest text-sm mb-2">Water where it shouldn't be?</p>
              <p class="text-5xl font-extrabold">0800 555 0199</p>
              <p class="mt-3 text-red-100">Covering Leeds, Bradford, Wakefield, Harrogate and everywhere in between.</p>
            </section>
            <footer class="bg-blue-900 text-blue-200 text-xs text-center py-5">FlowRight Plumbing &amp; Heating Ltd &middot; Gas Safe Reg. 548712 &middot; &copy; 2024</footer>
        """,
    ),
    # f012 -- bookshop: left sidebar with genres, staff picks list, events
    AuthoredPage(
        description=words("""
            I own an independent bookshop with a café corner and a cat. I want our website to feel
            cosy, bookish and a little bit quirky, like browsing our shelves on a rainy afternoon. I'd
            like visitors to be able to browse by genre from a menu down the side, see this week's
            staff picks with a short comment from whoever recommended each one, and find out about
            upcoming author readings and book club nights."""),
        title="The Dog-Eared Page",
        body_class="bg-yellow-50 text-gray-800 font-serif",
        body="""
            <header class="border-b-2 border-gray-800 px-8 py-6 flex justify-between items-center">
              <h1 class="text-3xl font-bold">The Dog-Eared Page</h1>
              <p class="text-sm italic text-gray-600">Independent booksellers &middot; Hay-on-Wye</p>
            </header>
            <div class="flex">
              <aside class="w-64 border-r-2 border-gray-800 px-8 py-10 min-h-screen">
                <h2 class="text-xs font-sans font-bold uppercase tracking-widest text-gray-500 mb-4">Browse</h2>
                <ul class="space-y-3 text-lg">
                  <li><a href="#" class="hover:underline">Fiction</a></li>
                  <li><a href="#" class="hover:underline">Crime &amp; Mystery</a></li>
                  <li><a href="#" class="hover:underline">Poetry</a></li>
                  <li><a href="#" class="hover:underline">History</a></li>
                  <li><a href="#" class="hover:underline">Nature Writing</a></li>
                  <li><a href="#" class="hover:underline">Children's</a></li>
                  <li><a href="#" class="hover:underline">Second-hand &amp; Rare</a></li>
                </ul>
                <div class="mt-12 bg-white border-2 border-gray-800 p-4 text-sm">
                  <p class="font-bold mb-1">Open daily</p><p>9am &ndash; 6pm</p><p class="mt-2 italic">Ask for Mr Darcy, our shop cat.</p>
                </div>
              </aside>
              <main class="flex-1 px-10 py-10">
                <h2 class="text-2xl font-bold mb-6">This week's staff picks</h2>
                <div class="space-y-8">
                  <article class="flex gap-6"><img src="https://picsum.photos/id/48/120/180" alt="Cover" class="w-24 h-36 object-cover shadow-md"><div><h3 class="text-xl font-bold">The Salt Path</h3><p class="text-sm text-gray-500 mb-2">Raynor Winn</p><p class="italic">&ldquo;Made me want to walk the whole South West coast. Bring tissues.&rdquo; &mdash; Ruth</p><p class="font-sans font-bold mt-2">&pound;9.99</p></div></article>
                  <article class="flex gap-6"><img src="https://picsum.photos/id/48/120/180" alt="Cover" class="w-24 h-36 object-cover shadow-md"><div><h3 class="text-xl font-bold">Piranesi</h3><p class="text-sm text-gray-500 mb-2">Susanna Clarke</p><p class="italic">&ldquo;A strange, beautiful house full of tides and statues. I read it twice.&rdquo; &mdash; Tom</p><p class="font-sans font-bold mt-2">&pound;8.99</p></div></article>
                  <article class="flex gap-6"><img src="https://picsum.photos/id/48/120/180" alt="Cover" class="w-24 h-36 object-cover shadow-md"><div><h3 class="text-xl font-bold">The Thursday Murder Club</h3><p class="text-sm text-gray-500 mb-2">Richard Osman</p><p class="italic">&ldquo;Pensioners solving murders. Pure joy.&rdquo; &mdash; Maggie</p><p class="font-sans font-bold mt-2">&pound;8.99</p></div></article>
                </div>
                <h2 class="text-2xl font-bold mt-14 mb-6">Coming up in the shop</h2>
                <ul class="divide-y divide-gray-300 border-t border-b border-gray-300">
                  <li class="py-4 flex justify-between"><span><strong>Thu 14 Nov, 7pm</strong> &mdash; Reading &amp; signing with poet Gillian Clarke</span><span class="font-sans text-sm">&pound;5</span></li>
                  <li class="py-4 flex justify-between"><span><strong>Tue 19 Nov, 6:30pm</strong> &mdash; Crime book club: <em>The Hound of the Baskervilles</em></span><span class="font-sans text-sm">Free</span></li>
                  <li class="py-4 flex justify-between"><span><strong>Sat 23 Nov, 11am</strong> &mdash; Children's story hour</span><span class="font-sans text-sm">Free</span></li>
                </ul>
              </main>
            </div>
            <footer class="border-t-2 border-gray-800 px-8 py-4 text-sm flex justify-between"><span>14 Castle Street, Hay-on-Wye</span><span>&copy; 2024 The Dog-Eared Page</span></footer>
        """,
    ),
    # f013 -- photographer portfolio: black, tight gallery, minimal text
    AuthoredPage(
        description=words("""
            I'm a documentary and portrait photographer. I want a portfolio website that lets the
            photos speak and stays out of their way: dark, moody, elegant, almost no text. Visitors
            should land straight on my work, be able to jump between a few series, read a couple of
            sentences about me and the clients I've shot for, and find how to commission me."""),
        title="Mara Lind &mdash; Photography",
        body_class="bg-black text-gray-300",
        body="""
            <header class="flex justify-between items-center px-10 py-8">
              <span class="text-white text-lg tracking-widest uppercase">Mara Lind</span>
              <nav class="space-x-8 text-xs uppercase tracking-widest"><a href="#" class="text-white">Portraits</a><a href="#" class="hover:text-white">Landscapes</a><a href="#" class="hover:text-white">Stories</a><a href="#about" class="hover:text-white">About</a></nav>
            </header>
            <main class="px-10 grid grid-cols-2 md:grid-cols-4 gap-2">
              <img src="https://picsum.photos/id/48/600/800" alt="Fisherman, Lofoten" class="w-full h-full object-cover col-span-2 row-span-2 opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Portrait in window light" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Grandmother's hands" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Snow at dusk" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Market in Hanoi" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Dancer backstage" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/800/400" alt="Harbour at night" class="w-full h-64 object-cover col-span-2 opacity-90 hover:opacity-100">
              <img src="https://picsum.photos/id/48/400/400" alt="Boy with kite" class="w-full h-64 object-cover opacity-90 hover:opacity-100">
            </main>
            <section class="px-10 pt-20 grid md:grid-cols-3 gap-10 text-sm">
              <a href="#" class="group border-t border-gray-700 pt-4"><span class="text-gray-500">I</span><p class="text-white text-lg group-hover:text-gray-400">North of the Circle</p><p class="text-gray-500">Fishing villages of Lofoten, 2019&ndash;2023 &middot; 42 images</p></a>
              <a href="#" class="group border-t border-gray-700 pt-4"><span class="text-gray-500">II</span><p class="text-white text-lg group-hover:text-gray-400">Hands</p><p class="text-gray-500">Portraits of craftspeople at work &middot; 28 images</p></a>
              <a href="#" class="group border-t border-gray-700 pt-4"><span class="text-gray-500">III</span><p class="text-white text-lg group-hover:text-gray-400">Night Market</p><p class="text-gray-500">Street life after dark in Hanoi &middot; 35 images</p></a>
            </section>
            <section id="about" class="max-w-2xl mx-auto px-10 py-24 text-center">
              <p class="text-2xl font-light text-white leading-relaxed mb-6">Quiet pictures of people and the places that shape them.</p>
              <p class="text-sm leading-loose text-gray-400">Mara Lind is a Stockholm-based photographer working on long-form documentary projects and editorial portraits. Her work has appeared in The Guardian, National Geographic Traveller and Monocle.</p>
              <p class="mt-10 text-xs uppercase tracking-widest text-gray-500">Selected clients</p>
              <p class="mt-3 text-sm text-gray-400">Volvo &middot; IKEA Foundation &middot; Red Cross &middot; Kinfolk &middot; SAS</p>
            </section>
            <section class="border-t border-gray-800 py-16 text-center">
              <p class="text-xs uppercase tracking-widest text-gray-500 mb-4">Commissions &amp; prints</p>
              <a href="mailto:studio@maralind.example" class="text-3xl text-white font-light hover:text-gray-400">studio@maralind.example</a>
            </section>
            <footer class="flex justify-between px-10 py-8 text-xs text-gray-600 uppercase tracking-widest"><span>Stockholm</span><span>Instagram &middot; Behance</span><span>&copy; 2024</span></footer>
        """,
    ),
    # f014 -- real estate: search hero, listing cards with specs, agent strip
    AuthoredPage(
        description=words("""
            We're a local real-estate agency selling and letting homes in the suburbs. I'd like our
            website to feel professional, fresh and easy to use, aimed at young families and first-time
            buyers. Visitors should be able to search for a property right away, see some featured
            listings with the price, bedrooms, bathrooms and size, learn how we help sellers, and meet
            our agents. There should also be a way to get a free valuation."""),
        title="Keystone Realty",
        body_class="bg-gray-100 text-gray-800",
        body="""
            <header class="bg-white">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-4">
                <span class="text-2xl font-bold text-green-700">Keystone<span class="text-gray-800">Realty</span></span>
                <nav class="hidden md:flex space-x-6 text-sm font-medium"><a href="#">Buy</a><a href="#">Rent</a><a href="#">Sell</a><a href="#agents">Agents</a></nav>
                <a href="#valuation" class="bg-green-600 text-white text-sm font-semibold px-4 py-2 rounded-lg">Free valuation</a>
              </div>
            </header>
            <section class="bg-green-700 text-white py-20">
              <div class="max-w-4xl mx-auto px-6 text-center">
                <h1 class="text-4xl md:text-5xl font-bold mb-4">Find a home you'll love coming back to</h1>
                <p class="text-green-100 mb-8">Over 350 homes for sale and rent across Maple Grove, Cedar Park and Riverside.</p>
                <form class="bg-white rounded-lg p-3 grid md:grid-cols-4 gap-3 text-gray-700 text-sm">
                  <input type="text" placeholder="Town or postcode" class="md:col-span-2 border border-gray-200 rounded px-4 py-3">
                  <select class="border border-gray-200 rounded px-4 py-3"><option>Any price</option><option>Up to $400k</option><option>Up to $600k</option></select>
                  <button class="bg-green-600 text-white font-semibold rounded px-4 py-3 hover:bg-green-700">Search homes</button>
                </form>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-2xl font-bold mb-8">Featured properties</h2>
              <div class="grid md:grid-cols-3 gap-6">
                <div class="bg-white rounded-lg overflow-hidden shadow"><div class="relative"><img src="https://picsum.photos/id/48/480/300" alt="Maple Grove house" class="w-full h-52 object-cover"><span class="absolute top-3 left-3 bg-green-600 text-white text-xs font-bold px-2 py-1 rounded">For sale</span></div><div class="p-5"><p class="text-2xl font-bold text-green-700">$485,000</p><p class="text-gray-600 mb-4">42 Willow Lane, Maple Grove</p><div class="flex justify-between text-sm text-gray-500 border-t pt-3"><span>4 beds</span><span>2 baths</span><span>2,150 sq ft</span></div></div></div>
                <div class="bg-white rounded-lg overflow-hidden shadow"><div class="relative"><img src="https://picsum.photos/id/48/480/300" alt="Cedar Park townhouse" class="w-full h-52 object-cover"><span class="absolute top-3 left-3 bg-yellow-400 text-gray-900 text-xs font-bold px-2 py-1 rounded">New</span></div><div class="p-5"><p class="text-2xl font-bold text-green-700">$329,900</p><p class="text-gray-600 mb-4">7 Birch Court, Cedar Park</p><div class="flex justify-between text-sm text-gray-500 border-t pt-3"><span>3 beds</span><span>2 baths</span><span>1,480 sq ft</span></div></div></div>
                <div class="bg-white rounded-lg overflow-hidden shadow"><div class="relative"><img src="https://picsum.photos/id/48/480/300" alt="Riverside apartment" class="w-full h-52 object-cover"><span class="absolute top-3 left-3 bg-blue-600 text-white text-xs font-bold px-2 py-1 rounded">To rent</span></div><div class="p-5"><p class="text-2xl font-bold text-green-700">$1,850<span class="text-sm text-gray-500">/month</span></p><p class="text-gray-600 mb-4">Apt 12, The Wharf, Riverside</p><div class="flex justify-between text-sm text-gray-500 border-t pt-3"><span>2 beds</span><span>1 bath</span><span>920 sq ft</span></div></div></div>
              </div>
            </section>
            <section id="valuation" class="bg-white py-16">
              <div class="max-w-6xl mx-auto px-6 grid md:grid-cols-2 gap-12 items-center">
                <div><h2 class="text-3xl font-bold mb-4">Thinking of selling?</h2><p class="text-gray-600 mb-6">Our agents sold 214 homes last year, on average in 23 days and at 98.6% of the asking price. Start with a free, no-obligation valuation.</p><a href="#" class="inline-block bg-green-600 text-white font-semibold px-6 py-3 rounded-lg">Book my valuation</a></div>
                <img src="https://picsum.photos/id/48/560/360" alt="Agent handing over keys" class="w-full h-72 object-cover rounded-lg">
              </div>
            </section>
            <section id="agents" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-2xl font-bold mb-8 text-center">Meet our agents</h2>
              <div class="grid grid-cols-2 md:grid-cols-4 gap-6 text-center">
                <div><img src="https://picsum.photos/id/48/160/160" alt="Dana Ruiz" class="w-28 h-28 rounded-full object-cover mx-auto mb-3"><p class="font-semibold">Dana Ruiz</p><p class="text-sm text-gray-500">Sales Director</p></div>
                <div><img src="https://picsum.photos/id/48/160/160" alt="Tom Becker" class="w-28 h-28 rounded-full object-cover mx-auto mb-3"><p class="font-semibold">Tom Becker</p><p class="text-sm text-gray-500">Senior Agent</p></div>
                <div><img src="https://picsum.photos/id/48/160/160" alt="Aisha Khan" class="w-28 h-28 rounded-full object-cover mx-auto mb-3"><p class="font-semibold">Aisha Khan</p><p class="text-sm text-gray-500">Lettings Manager</p></div>
                <div><img src="https://picsum.photos/id/48/160/160" alt="Leo Park" class="w-28 h-28 rounded-full object-cover mx-auto mb-3"><p class="font-semibold">Leo Park</p><p class="text-sm text-gray-500">Agent</p></div>
              </div>
            </section>
            <footer class="bg-gray-800 text-gray-400 text-sm py-6 text-center">Keystone Realty &middot; 300 Main Street, Maple Grove &middot; (555) 201-8890</footer>
        """,
    ),
    # f015 -- music school: purple, instrument tiles, teachers, enrolment steps
    AuthoredPage(
        description=words("""
            I run a community music school that teaches kids and adults piano, guitar, violin, drums
            and singing. I'd like a website that's joyful, creative and encouraging, so parents trust
            us and adult beginners don't feel silly signing up. It should show the instruments we
            teach, introduce a few of our teachers, explain how to get started in a few simple steps,
            and mention our end-of-term concerts."""),
        title="Crescendo Music School",
        body_class="bg-white text-gray-800",
        body="""
            <header class="bg-purple-700 text-white">
              <div class="max-w-6xl mx-auto px-6 py-5 flex justify-between items-center">
                <span class="text-2xl font-bold">&#9835; Crescendo</span>
                <a href="#start" class="bg-yellow-300 text-purple-900 font-bold rounded-full px-5 py-2">Book a trial lesson</a>
              </div>
              <div class="max-w-6xl mx-auto px-6 pt-10 pb-24 text-center">
                <h1 class="text-5xl font-extrabold mb-4">Everyone has music in them.</h1>
                <p class="text-xl text-purple-200 max-w-2xl mx-auto">One-to-one and group lessons for ages 5 to 95, taught by working musicians who love to teach.</p>
              </div>
            </header>
            <section class="max-w-6xl mx-auto px-6 -mt-12 grid grid-cols-2 md:grid-cols-5 gap-4">
              <div class="bg-white rounded-xl shadow-lg p-6 text-center"><p class="w-14 h-14 rounded-full bg-purple-100 text-purple-700 text-2xl font-extrabold flex items-center justify-center mx-auto mb-3">P</p><p class="font-bold">Piano</p><p class="text-xs text-gray-500">from age 5</p></div>
              <div class="bg-white rounded-xl shadow-lg p-6 text-center"><p class="w-14 h-14 rounded-full bg-purple-100 text-purple-700 text-2xl font-extrabold flex items-center justify-center mx-auto mb-3">G</p><p class="font-bold">Guitar</p><p class="text-xs text-gray-500">from age 7</p></div>
              <div class="bg-white rounded-xl shadow-lg p-6 text-center"><p class="w-14 h-14 rounded-full bg-purple-100 text-purple-700 text-2xl font-extrabold flex items-center justify-center mx-auto mb-3">V</p><p class="font-bold">Violin</p><p class="text-xs text-gray-500">from age 6</p></div>
              <div class="bg-white rounded-xl shadow-lg p-6 text-center"><p class="w-14 h-14 rounded-full bg-purple-100 text-purple-700 text-2xl font-extrabold flex items-center justify-center mx-auto mb-3">D</p><p class="font-bold">Drums</p><p class="text-xs text-gray-500">from age 8</p></div>
              <div class="bg-white rounded-xl shadow-lg p-6 text-center"><p class="w-14 h-14 rounded-full bg-purple-100 text-purple-700 text-2xl font-extrabold flex items-center justify-center mx-auto mb-3">S</p><p class="font-bold">Voice</p><p class="text-xs text-gray-500">from age 9</p></div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-extrabold text-purple-800 mb-10 text-center">Meet some of our teachers</h2>
              <div class="grid md:grid-cols-3 gap-8">
                <div class="flex items-center space-x-4 bg-purple-50 rounded-xl p-5"><img src="https://picsum.photos/id/48/120/120" alt="Sofia" class="w-20 h-20 rounded-full object-cover"><div><p class="font-bold">Sofia Marin</p><p class="text-sm text-purple-700">Piano &middot; Royal Academy graduate</p></div></div>
                <div class="flex items-center space-x-4 bg-purple-50 rounded-xl p-5"><img src="https://picsum.photos/id/48/120/120" alt="Jamal" class="w-20 h-20 rounded-full object-cover"><div><p class="font-bold">Jamal Brooks</p><p class="text-sm text-purple-700">Drums &middot; Touring session player</p></div></div>
                <div class="flex items-center space-x-4 bg-purple-50 rounded-xl p-5"><img src="https://picsum.photos/id/48/120/120" alt="Ingrid" class="w-20 h-20 rounded-full object-cover"><div><p class="font-bold">Ingrid Holm</p><p class="text-sm text-purple-700">Violin &middot; City Symphony</p></div></div>
              </div>
            </section>
            <section id="start" class="bg-yellow-100 py-20">
              <div class="max-w-5xl mx-auto px-6">
                <h2 class="text-3xl font-extrabold text-purple-800 mb-10 text-center">Getting started is easy</h2>
                <ol class="grid md:grid-cols-3 gap-8">
                  <li class="text-center"><span class="inline-flex w-14 h-14 rounded-full bg-purple-700 text-white text-2xl font-bold items-center justify-center mb-4">1</span><p class="font-bold mb-1">Book a free trial</p><p class="text-sm text-gray-600">30 minutes to meet a teacher and try an instrument.</p></li>
                  <li class="text-center"><span class="inline-flex w-14 h-14 rounded-full bg-purple-700 text-white text-2xl font-bold items-center justify-center mb-4">2</span><p class="font-bold mb-1">Pick your slot</p><p class="text-sm text-gray-600">Weekday afternoons, evenings or Saturday mornings.</p></li>
                  <li class="text-center"><span class="inline-flex w-14 h-14 rounded-full bg-purple-700 text-white text-2xl font-bold items-center justify-center mb-4">3</span><p class="font-bold mb-1">Play on stage</p><p class="text-sm text-gray-600">Every student can perform at our termly concert.</p></li>
                </ol>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-10 items-center">
              <img src="https://picsum.photos/id/48/560/360" alt="Students performing in concert" class="w-full h-72 object-cover rounded-xl">
              <div><h2 class="text-3xl font-extrabold text-purple-800 mb-4">Winter Concert &ndash; 14 December</h2><p class="text-gray-600 mb-4">Over 80 students take the stage at St Mary's Hall, from first-term recorder players to our adult rock band. Free entry, mince pies included.</p><a href="#" class="text-purple-700 font-bold">Reserve seats &rarr;</a></div>
            </section>
            <footer class="bg-purple-900 text-purple-200 text-sm text-center py-6">Crescendo Music School &middot; 5 Chapel Road, Didsbury &middot; &copy; 2024</footer>
        """,
    ),
    # f016 -- vet clinic: green, services with icons, hours table, emergency panel, team
    AuthoredPage(
        description=words("""
            I'm the practice manager at a veterinary clinic for cats, dogs and small pets. Our
            website should feel caring, friendly and calm, and it should reassure worried owners. I
            want it to explain the services we provide, show our opening times clearly, make it very
            obvious what to do in an out-of-hours emergency, introduce the vets, and let people
            register their pet with us."""),
        title="Willow Creek Veterinary Clinic",
        body_class="bg-white text-gray-700",
        body="""
            <header class="max-w-6xl mx-auto flex justify-between items-center px-6 py-5">
              <span class="text-xl font-bold text-green-700">Willow Creek <span class="font-normal text-gray-500">Vets</span></span>
              <nav class="hidden md:flex space-x-6 text-sm"><a href="#services">Services</a><a href="#hours">Opening times</a><a href="#team">Our vets</a></nav>
              <a href="#" class="bg-green-600 text-white text-sm rounded-md px-4 py-2">Register your pet</a>
            </header>
            <section class="bg-green-50">
              <div class="max-w-6xl mx-auto px-6 py-14 grid md:grid-cols-2 gap-10 items-center">
                <div><h1 class="text-4xl font-bold text-gray-900 mb-4">Gentle, expert care for the animals you love</h1><p class="text-lg mb-6">An independent clinic in Willow Creek, caring for cats, dogs, rabbits and guinea pigs since 1998.</p><a href="#" class="inline-block bg-green-600 text-white rounded-md px-6 py-3 font-semibold">Book an appointment</a></div>
                <img src="https://picsum.photos/id/48/560/400" alt="Vet with a golden retriever" class="w-full h-80 object-cover rounded-2xl">
              </div>
            </section>
            <section id="services" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-bold text-gray-900 mb-8">How we can help</h2>
              <div class="grid sm:grid-cols-2 md:grid-cols-3 gap-6">
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Vaccinations</h3><p class="text-sm">Puppy, kitten and annual boosters.</p></div></div>
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Dentistry</h3><p class="text-sm">Scale and polish, extractions, dental X-ray.</p></div></div>
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Surgery</h3><p class="text-sm">Neutering and soft-tissue surgery on site.</p></div></div>
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Nutrition clinics</h3><p class="text-sm">Free weight checks with our nurses.</p></div></div>
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Microchipping</h3><p class="text-sm">Quick, done during any consultation.</p></div></div>
                <div class="flex space-x-4"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-green-100 text-green-700 flex items-center justify-center font-bold">+</span><div><h3 class="font-semibold text-gray-900">Senior pet care</h3><p class="text-sm">Arthritis, kidney and thyroid monitoring.</p></div></div>
              </div>
            </section>
            <section id="hours" class="bg-gray-50 py-16">
              <div class="max-w-6xl mx-auto px-6 grid md:grid-cols-2 gap-10">
                <div class="bg-white rounded-xl p-8 shadow-sm">
                  <h2 class="text-2xl font-bold text-gray-900 mb-4">Opening times</h2>
                  <dl class="divide-y divide-gray-100 text-sm">
                    <div class="flex justify-between py-2"><dt>Monday &ndash; Friday</dt><dd class="font-semibold">8:00 &ndash; 19:00</dd></div>
                    <div class="flex justify-between py-2"><dt>Saturday</dt><dd class="font-semibold">9:00 &ndash; 13:00</dd></div>
                    <div class="flex justify-between py-2"><dt>Sunday &amp; bank holidays</dt><dd class="font-semibold">Closed</dd></div>
                  </dl>
                </div>
                <div class="bg-red-50 border-2 border-red-200 rounded-xl p-8">
                  <h2 class="text-2xl font-bold text-red-700 mb-3">Out-of-hours emergency?</h2>
                  <p class="mb-4">Call us on the number below. Your call is answered by our partner emergency hospital, open 24/7, 365 days a year.</p>
                  <p class="text-3xl font-bold text-red-700">01632 960 999</p>
                </div>
              </div>
            </section>
            <section id="team" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-bold text-gray-900 mb-8 text-center">Our vets</h2>
              <div class="grid md:grid-cols-3 gap-8 text-center">
                <div><img src="https://picsum.photos/id/48/300/300" alt="Dr Emma Shaw" class="w-40 h-40 rounded-full object-cover mx-auto mb-4 ring-4 ring-green-100"><p class="font-semibold text-gray-900">Dr Emma Shaw</p><p class="text-sm">Clinical Director, cats &amp; dentistry</p></div>
                <div><img src="https://picsum.photos/id/48/300/300" alt="Dr Ben Adeyemi" class="w-40 h-40 rounded-full object-cover mx-auto mb-4 ring-4 ring-green-100"><p class="font-semibold text-gray-900">Dr Ben Adeyemi</p><p class="text-sm">Surgery &amp; orthopaedics</p></div>
                <div><img src="https://picsum.photos/id/48/300/300" alt="Dr Lucy Tran" class="w-40 h-40 rounded-full object-cover mx-auto mb-4 ring-4 ring-green-100"><p class="font-semibold text-gray-900">Dr Lucy Tran</p><p class="text-sm">Rabbits &amp; exotic pets</p></div>
              </div>
            </section>
            <footer class="bg-green-800 text-green-100 text-sm text-center py-6">Willow Creek Veterinary Clinic &middot; 9 Mill Lane, Willow Creek &middot; &copy; 2024</footer>
        """,
    ),
    # f017 -- food truck: playful pink and yellow, menu board, weekly locations
    AuthoredPage(
        description=words("""
            My partner and I run a taco food truck that moves around the city during the week. We
            want a website that's fun, colourful and full of energy, a bit like a street party. The
            most important thing is where the truck is each day and at what times. Besides that,
            show our menu with prices, mention that we cater for events and weddings, and link to
            our social media so people can follow us."""),
        title="Taco Loco Food Truck",
        body_class="bg-yellow-300 text-gray-900",
        body="""
            <header class="text-center pt-12 pb-8 px-6">
              <h1 class="text-7xl font-black text-pink-600 tracking-tight transform -rotate-2">TACO LOCO!</h1>
              <p class="mt-4 text-xl font-bold">Street tacos. Big flavour. Different corner every day.</p>
            </header>
            <section class="max-w-5xl mx-auto px-6 pb-12">
              <img src="https://picsum.photos/id/48/1000/420" alt="The Taco Loco truck" class="w-full h-80 object-cover rounded-3xl border-8 border-white shadow-xl">
            </section>
            <section class="bg-pink-600 text-white py-14">
              <div class="max-w-5xl mx-auto px-6">
                <h2 class="text-4xl font-black mb-8 text-center">Where's the truck?</h2>
                <div class="grid grid-cols-2 md:grid-cols-5 gap-4 text-center">
                  <div class="bg-white text-gray-900 rounded-2xl p-4"><p class="font-black text-pink-600">MON</p><p class="font-bold">Tech Park</p><p class="text-sm">11:30&ndash;2:30</p></div>
                  <div class="bg-white text-gray-900 rounded-2xl p-4"><p class="font-black text-pink-600">TUE</p><p class="font-bold">City Hall Plaza</p><p class="text-sm">11:00&ndash;2:00</p></div>
                  <div class="bg-white text-gray-900 rounded-2xl p-4"><p class="font-black text-pink-600">WED</p><p class="font-bold">University Ave</p><p class="text-sm">12:00&ndash;3:00</p></div>
                  <div class="bg-white text-gray-900 rounded-2xl p-4"><p class="font-black text-pink-600">THU</p><p class="font-bold">Harbor Brewery</p><p class="text-sm">5:00&ndash;9:00</p></div>
                  <div class="bg-yellow-300 text-gray-900 rounded-2xl p-4 col-span-2 md:col-span-1"><p class="font-black text-pink-600">FRI&ndash;SAT</p><p class="font-bold">Night Market</p><p class="text-sm">6:00&ndash;late</p></div>
                </div>
              </div>
            </section>
            <section class="max-w-4xl mx-auto px-6 py-16">
              <h2 class="text-4xl font-black text-center mb-10">The Menu</h2>
              <div class="bg-white rounded-3xl p-8 md:p-12 shadow-lg grid md:grid-cols-2 gap-x-12 gap-y-6">
                <div><div class="flex justify-between font-black text-lg"><span>Al Pastor</span><span class="text-pink-600">$4</span></div><p class="text-sm text-gray-600">Spit-roasted pork, pineapple, onion, cilantro</p></div>
                <div><div class="flex justify-between font-black text-lg"><span>Carne Asada</span><span class="text-pink-600">$4.50</span></div><p class="text-sm text-gray-600">Grilled steak, salsa roja, lime</p></div>
                <div><div class="flex justify-between font-black text-lg"><span>Baja Fish</span><span class="text-pink-600">$5</span></div><p class="text-sm text-gray-600">Beer-battered cod, chipotle slaw</p></div>
                <div><div class="flex justify-between font-black text-lg"><span>Hongos</span><span class="text-pink-600">$4</span></div><p class="text-sm text-gray-600">Garlic mushrooms, queso fresco (veggie)</p></div>
                <div><div class="flex justify-between font-black text-lg"><span>Elote</span><span class="text-pink-600">$3.50</span></div><p class="text-sm text-gray-600">Street corn, cotija, chilli mayo</p></div>
                <div><div class="flex justify-between font-black text-lg"><span>Horchata</span><span class="text-pink-600">$3</span></div><p class="text-sm text-gray-600">House-made, cinnamon and rice</p></div>
              </div>
            </section>
            <section class="bg-gray-900 text-white py-14 text-center px-6">
              <h2 class="text-3xl font-black text-yellow-300 mb-3">Tacos at your party?</h2>
              <p class="mb-6 max-w-xl mx-auto">We cater weddings, office parties and festivals for 30 to 500 hungry people.</p>
              <a href="#" class="inline-block bg-pink-600 hover:bg-pink-500 font-black rounded-full px-8 py-4">Get a catering quote</a>
            </section>
            <footer class="text-center py-8 font-bold space-x-6"><a href="#" class="hover:text-pink-600">Instagram</a><a href="#" class="hover:text-pink-600">TikTok</a><a href="#" class="hover:text-pink-600">Facebook</a><span class="block mt-3 text-sm font-normal">&copy; 2024 Taco Loco &middot; hola@tacoloco.example</span></footer>
        """,
    ),
    # f018 -- co-working space: amenities checklist, membership plans, FAQ
    AuthoredPage(
        description=words("""
            We've opened a co-working space in a converted warehouse for freelancers, remote workers
            and small startups. The website should feel creative, sociable and productive, not like
            a grey office. I'd like to show the space, list what's included (fast wifi, coffee,
            meeting rooms and so on), compare our membership plans side by side, answer a few common
            questions, and offer a free day pass to tempt people in."""),
        title="Hive Workspace",
        body_class="bg-gray-100 text-gray-800",
        body="""
            <nav class="bg-white">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-4">
                <span class="flex items-center space-x-2 text-xl font-bold"><span class="w-8 h-8 bg-yellow-400 rounded-md"></span><span>Hive</span></span>
                <div class="space-x-6 text-sm"><a href="#plans">Plans</a><a href="#faq">FAQ</a><a href="#" class="bg-gray-900 text-white px-4 py-2 rounded-md">Book a tour</a></div>
              </div>
            </nav>
            <section class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-12 items-center">
              <div>
                <span class="inline-block bg-yellow-200 text-yellow-900 text-xs font-bold uppercase tracking-wider rounded-full px-3 py-1 mb-4">Now open in Northside</span>
                <h1 class="text-5xl font-bold leading-tight mb-6">Do your best work among people who get it.</h1>
                <p class="text-lg text-gray-600 mb-8">120 desks, six meeting rooms and a rooftop, in a 1920s warehouse ten minutes from downtown.</p>
                <a href="#" class="bg-yellow-400 hover:bg-yellow-300 font-bold px-6 py-3 rounded-md">Claim a free day pass</a>
              </div>
              <div class="grid grid-cols-2 gap-4"><img src="https://picsum.photos/id/48/300/380" alt="Hot desks" class="w-full h-72 object-cover rounded-xl"><img src="https://picsum.photos/id/48/300/380" alt="Rooftop terrace" class="w-full h-72 object-cover rounded-xl mt-10"></div>
            </section>
            <section class="bg-white py-16">
              <div class="max-w-6xl mx-auto px-6">
                <h2 class="text-3xl font-bold mb-8">Everything's included</h2>
                <ul class="grid sm:grid-cols-2 md:grid-cols-4 gap-4 text-sm">
                  <li class="bg-gray-50 rounded-lg p-4">&#10003; 1 Gbps fibre wifi</li><li class="bg-gray-50 rounded-lg p-4">&#10003; Unlimited barista coffee</li>
                  <li class="bg-gray-50 rounded-lg p-4">&#10003; Phone booths</li><li class="bg-gray-50 rounded-lg p-4">&#10003; 24/7 key-card access</li>
                  <li class="bg-gray-50 rounded-lg p-4">&#10003; Bike storage &amp; showers</li><li class="bg-gray-50 rounded-lg p-4">&#10003; Printing &amp; mail handling</li>
                  <li class="bg-gray-50 rounded-lg p-4">&#10003; Friday socials</li><li class="bg-gray-50 rounded-lg p-4">&#10003; Dog-friendly floors</li>
                </ul>
              </div>
            </section>
            <section id="plans" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-bold text-center mb-10">Membership plans</h2>
              <div class="bg-white rounded-xl overflow-hidden shadow grid md:grid-cols-3 divide-y md:divide-y-0 md:divide-x divide-gray-100">
                <div class="p-8"><h3 class="font-bold text-lg">Flex</h3><p class="text-sm text-gray-500 mb-4">For occasional visits</p><p class="text-4xl font-bold mb-6">$149<span class="text-sm font-normal text-gray-500">/mo</span></p><p class="text-sm">10 days a month, any hot desk, 2 hours of meeting rooms.</p></div>
                <div class="p-8 bg-yellow-50"><h3 class="font-bold text-lg">Resident</h3><p class="text-sm text-gray-500 mb-4">Most popular</p><p class="text-4xl font-bold mb-6">$329<span class="text-sm font-normal text-gray-500">/mo</span></p><p class="text-sm">Your own fixed desk and locker, unlimited access, 8 hours of meeting rooms.</p></div>
                <div class="p-8"><h3 class="font-bold text-lg">Studio</h3><p class="text-sm text-gray-500 mb-4">For teams of 3&ndash;8</p><p class="text-4xl font-bold mb-6">$1,400<span class="text-sm font-normal text-gray-500">/mo</span></p><p class="text-sm">A lockable private room with your logo on the door.</p></div>
              </div>
            </section>
            <section id="faq" class="max-w-3xl mx-auto px-6 pb-20">
              <h2 class="text-3xl font-bold mb-6">Questions</h2>
              <div class="space-y-4">
                <div class="bg-white rounded-lg p-5"><h3 class="font-semibold">Can I bring clients?</h3><p class="text-sm text-gray-600 mt-1">Yes, guests are welcome any time and we'll greet them at reception.</p></div>
                <div class="bg-white rounded-lg p-5"><h3 class="font-semibold">Is there a contract?</h3><p class="text-sm text-gray-600 mt-1">No. All plans are month to month and you can cancel with 30 days' notice.</p></div>
                <div class="bg-white rounded-lg p-5"><h3 class="font-semibold">Where do I park?</h3><p class="text-sm text-gray-600 mt-1">There are 40 free spaces behind the building and a tram stop out front.</p></div>
              </div>
            </section>
            <footer class="bg-gray-900 text-gray-400 text-sm py-8 text-center">Hive Workspace &middot; 77 Foundry Street, Northside &middot; hello@hive.example</footer>
        """,
    ),
    # f019 -- florist: soft pink, serif, bouquet gallery, occasions, delivery info
    AuthoredPage(
        description=words("""
            I'm a florist with a little shop and a delivery service. I want a website as pretty and
            romantic as our flowers, soft, feminine and elegant but not over the top. Customers should
            see a selection of our bouquets with prices, be able to shop by occasion like birthdays,
            sympathy or weddings, understand our same-day delivery, and read a little about the shop."""),
        title="Petal &amp; Stem Florist",
        body_class="bg-pink-50 text-gray-700 font-serif",
        body="""
            <header class="text-center pt-10 pb-6">
              <p class="text-4xl italic text-pink-800">Petal &amp; Stem</p>
              <p class="text-xs font-sans uppercase tracking-widest text-pink-400 mt-2">Florist &middot; Bath</p>
              <nav class="mt-6 space-x-8 font-sans text-sm text-gray-600"><a href="#shop">Shop</a><a href="#occasions">Occasions</a><a href="#delivery">Delivery</a><a href="#about">Our shop</a></nav>
            </header>
            <section class="max-w-6xl mx-auto px-6">
              <div class="relative">
                <img src="https://picsum.photos/id/48/1200/500" alt="Peonies in a vase" class="w-full h-96 object-cover rounded-lg">
                <div class="absolute bottom-8 left-8 bg-white bg-opacity-90 p-8 max-w-sm rounded-lg"><h1 class="text-3xl text-pink-800 mb-2">Peony season is here</h1><p class="text-sm font-sans mb-4">Blush, coral and white, for a few short weeks only.</p><a href="#shop" class="font-sans text-sm text-white bg-pink-700 rounded-full px-5 py-2">Shop peonies</a></div>
              </div>
            </section>
            <section id="shop" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl text-center text-pink-800 mb-10">Bestselling bouquets</h2>
              <div class="grid grid-cols-2 md:grid-cols-4 gap-6 text-center">
                <div><img src="https://picsum.photos/id/48/300/380" alt="The Juliet" class="w-full h-64 object-cover rounded-t-full mb-3"><p class="text-lg">The Juliet</p><p class="font-sans text-sm text-pink-700">&pound;45</p></div>
                <div><img src="https://picsum.photos/id/48/300/380" alt="Meadow Mix" class="w-full h-64 object-cover rounded-t-full mb-3"><p class="text-lg">Meadow Mix</p><p class="font-sans text-sm text-pink-700">&pound;35</p></div>
                <div><img src="https://picsum.photos/id/48/300/380" alt="White Garden" class="w-full h-64 object-cover rounded-t-full mb-3"><p class="text-lg">White Garden</p><p class="font-sans text-sm text-pink-700">&pound;50</p></div>
                <div><img src="https://picsum.photos/id/48/300/380" alt="Sunday Posy" class="w-full h-64 object-cover rounded-t-full mb-3"><p class="text-lg">Sunday Posy</p><p class="font-sans text-sm text-pink-700">&pound;25</p></div>
              </div>
            </section>
            <section id="occasions" class="bg-white py-14">
              <div class="max-w-4xl mx-auto px-6 text-center">
                <h2 class="text-3xl text-pink-800 mb-8">Shop by occasion</h2>
                <div class="flex flex-wrap justify-center gap-3 font-sans text-sm">
                  <a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Birthday</a><a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Anniversary</a><a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">New baby</a>
                  <a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Sympathy</a><a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Get well</a><a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Weddings</a><a href="#" class="border border-pink-300 rounded-full px-5 py-2 hover:bg-pink-100">Just because</a>
                </div>
              </div>
            </section>
            <section id="delivery" class="max-w-5xl mx-auto px-6 py-16 grid md:grid-cols-3 gap-8 text-center">
              <div><p class="text-2xl text-pink-800 mb-2">Same day</p><p class="font-sans text-sm">Order by 1pm for delivery anywhere in Bath the same afternoon.</p></div>
              <div><p class="text-2xl text-pink-800 mb-2">Hand-tied</p><p class="font-sans text-sm">Every bouquet is arranged to order and arrives in water.</p></div>
              <div><p class="text-2xl text-pink-800 mb-2">Note included</p><p class="font-sans text-sm">Add a handwritten card with your message, free of charge.</p></div>
            </section>
            <section id="about" class="max-w-3xl mx-auto px-6 pb-16 text-center">
              <p class="text-xl italic leading-relaxed">&ldquo;I opened Petal &amp; Stem in 2015 in a tiny shop on Walcot Street, with a bucket of tulips and a lot of hope. Nearly ten years on, we still buy British flowers whenever the season allows.&rdquo;</p>
              <p class="font-sans text-sm text-pink-700 mt-4">&mdash; Imogen, founder</p>
            </section>
            <footer class="border-t border-pink-200 py-6 text-center font-sans text-xs text-gray-500">Petal &amp; Stem &middot; 21 Walcot Street, Bath &middot; &copy; 2024</footer>
        """,
    ),
    # f020 -- tech conference: dark indigo, date blocks, speakers, schedule timeline, tickets
    AuthoredPage(
        description=words("""
            I'm organising a two-day developer conference about web and cloud engineering. The
            website needs to feel exciting, modern and a bit futuristic, for software engineers who
            are used to slick tech brands. It should announce the dates and city loud and clear,
            show the headline speakers, outline the schedule for the two days, and sell tickets at
            a few different prices, with an early-bird deadline."""),
        title="DevSummit 2025",
        body_class="bg-gray-900 text-gray-100",
        body="""
            <section class="bg-gradient-to-br from-indigo-900 via-purple-900 to-gray-900">
              <nav class="max-w-6xl mx-auto flex justify-between items-center px-6 py-6"><span class="font-mono font-bold text-xl">&lt;DevSummit/&gt;</span><a href="#tickets" class="bg-pink-500 hover:bg-pink-400 text-white font-semibold rounded px-5 py-2">Get tickets</a></nav>
              <div class="max-w-6xl mx-auto px-6 py-24">
                <p class="font-mono text-pink-400 mb-4">// 12&ndash;13 June 2025 &middot; Berlin</p>
                <h1 class="text-6xl md:text-7xl font-extrabold leading-none mb-8">Build the<br>next web.</h1>
                <div class="flex space-x-4 font-mono text-center">
                  <div class="bg-white bg-opacity-10 rounded-lg px-6 py-4"><p class="text-4xl font-bold">2</p><p class="text-xs text-gray-400">days</p></div>
                  <div class="bg-white bg-opacity-10 rounded-lg px-6 py-4"><p class="text-4xl font-bold">40</p><p class="text-xs text-gray-400">talks</p></div>
                  <div class="bg-white bg-opacity-10 rounded-lg px-6 py-4"><p class="text-4xl font-bold">1,500</p><p class="text-xs text-gray-400">developers</p></div>
                </div>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold mb-10"><span class="text-pink-500 font-mono">01.</span> Speakers</h2>
              <div class="grid grid-cols-2 md:grid-cols-4 gap-8">
                <div class="text-center"><img src="https://picsum.photos/id/48/240/240" alt="Lena Fischer" class="w-36 h-36 rounded-full object-cover mx-auto mb-4 ring-4 ring-indigo-500"><p class="font-bold">Lena Fischer</p><p class="text-sm text-gray-400">Staff Engineer, Vercel</p></div>
                <div class="text-center"><img src="https://picsum.photos/id/48/240/240" alt="Kenji Sato" class="w-36 h-36 rounded-full object-cover mx-auto mb-4 ring-4 ring-pink-500"><p class="font-bold">Kenji Sato</p><p class="text-sm text-gray-400">Rust core team</p></div>
                <div class="text-center"><img src="https://picsum.photos/id/48/240/240" alt="Amara Obi" class="w-36 h-36 rounded-full object-cover mx-auto mb-4 ring-4 ring-purple-500"><p class="font-bold">Amara Obi</p><p class="text-sm text-gray-400">Principal SRE, Cloudflare</p></div>
                <div class="text-center"><img src="https://picsum.photos/id/48/240/240" alt="Diego Alvarez" class="w-36 h-36 rounded-full object-cover mx-auto mb-4 ring-4 ring-indigo-500"><p class="font-bold">Diego Alvarez</p><p class="text-sm text-gray-400">Creator of Astrolabe.js</p></div>
              </div>
            </section>
            <section class="bg-gray-800 py-20">
              <div class="max-w-4xl mx-auto px-6">
                <h2 class="text-3xl font-bold mb-10"><span class="text-pink-500 font-mono">02.</span> Schedule</h2>
                <div class="border-l-2 border-indigo-500 pl-8 space-y-8">
                  <div><p class="font-mono text-sm text-pink-400">Day 1 &middot; 09:00</p><p class="text-xl font-semibold">Keynote: The Edge Is the Platform</p><p class="text-gray-400">Lena Fischer</p></div>
                  <div><p class="font-mono text-sm text-pink-400">Day 1 &middot; 11:00</p><p class="text-xl font-semibold">Memory Safety Without Tears</p><p class="text-gray-400">Kenji Sato</p></div>
                  <div><p class="font-mono text-sm text-pink-400">Day 1 &middot; 19:00</p><p class="text-xl font-semibold">Rooftop party &amp; lightning talks</p><p class="text-gray-400">Everyone</p></div>
                  <div><p class="font-mono text-sm text-pink-400">Day 2 &middot; 09:30</p><p class="text-xl font-semibold">Postmortems We Learned From</p><p class="text-gray-400">Amara Obi</p></div>
                  <div><p class="font-mono text-sm text-pink-400">Day 2 &middot; 14:00</p><p class="text-xl font-semibold">Workshops: WebGPU, WASM, Observability</p><p class="text-gray-400">Hands-on tracks</p></div>
                </div>
              </div>
            </section>
            <section id="tickets" class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold mb-2"><span class="text-pink-500 font-mono">03.</span> Tickets</h2>
              <p class="text-gray-400 mb-10">Early-bird prices end 31 March.</p>
              <div class="grid md:grid-cols-3 gap-6">
                <div class="border border-gray-700 rounded-xl p-8"><p class="font-mono text-sm text-gray-400">Student</p><p class="text-4xl font-bold my-3">&euro;149</p><p class="text-sm text-gray-400 mb-6">Valid student ID required.</p><a href="#" class="block text-center border border-gray-500 rounded py-2">Buy</a></div>
                <div class="border-2 border-pink-500 rounded-xl p-8 bg-gray-800"><p class="font-mono text-sm text-pink-400">Early bird</p><p class="text-4xl font-bold my-3">&euro;399</p><p class="text-sm text-gray-400 mb-6">Both days, workshops and party.</p><a href="#" class="block text-center bg-pink-500 rounded py-2 font-semibold">Buy</a></div>
                <div class="border border-gray-700 rounded-xl p-8"><p class="font-mono text-sm text-gray-400">Team of 5</p><p class="text-4xl font-bold my-3">&euro;1,690</p><p class="text-sm text-gray-400 mb-6">Save 15% and sit together.</p><a href="#" class="block text-center border border-gray-500 rounded py-2">Buy</a></div>
              </div>
            </section>
            <footer class="border-t border-gray-800 py-8 text-center text-sm text-gray-500 font-mono">DevSummit 2025 &middot; Station Berlin &middot; Code of conduct &middot; hello@devsummit.example</footer>
        """,
    ),
    # f021 -- craft brewery: dark wood feel, beer list with ABV, taproom, events
    AuthoredPage(
        description=words("""
            We're a craft brewery with a taproom attached, in an old iron foundry. I want a website
            with character, a bit industrial and rugged but welcoming, for beer lovers and people
            looking for a good night out. It should show our core beers with their style and
            strength, tell people when the taproom is open and that there's food on weekends,
            advertise brewery tours, and list what's on this month, like quiz nights and live music."""),
        title="Iron Hop Brewing Co.",
        body_class="bg-gray-800 text-gray-100",
        body="""
            <header class="bg-gray-900 border-b-4 border-yellow-600">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-5">
                <span class="text-2xl font-extrabold uppercase tracking-widest text-yellow-500">Iron Hop</span>
                <nav class="space-x-6 text-sm uppercase tracking-wider text-gray-300"><a href="#beers">Beers</a><a href="#taproom">Taproom</a><a href="#events">What's on</a></nav>
              </div>
            </header>
            <section class="grid md:grid-cols-2">
              <div class="bg-gray-900 px-10 py-20 flex flex-col justify-center">
                <p class="text-yellow-500 uppercase tracking-widest text-sm mb-3">Brewed in the old foundry since 2014</p>
                <h1 class="text-5xl font-extrabold uppercase leading-tight mb-6">Forged<br>in fire.<br>Poured cold.</h1>
                <a href="#taproom" class="self-start bg-yellow-600 hover:bg-yellow-500 text-gray-900 font-bold uppercase px-6 py-3">Visit the taproom</a>
              </div>
              <img src="https://picsum.photos/id/48/700/520" alt="Brewhouse tanks" class="w-full h-full object-cover">
            </section>
            <section id="beers" class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-extrabold uppercase text-yellow-500 mb-10">Core range</h2>
              <div class="grid md:grid-cols-2 gap-6">
                <div class="flex bg-gray-900 rounded"><div class="w-3 bg-yellow-400 rounded-l"></div><div class="p-6 flex-1 flex justify-between"><div><h3 class="text-xl font-bold">Foundry Pale</h3><p class="text-gray-400 text-sm">American Pale Ale &middot; citrus, pine</p></div><span class="text-2xl font-extrabold text-yellow-500">4.8%</span></div></div>
                <div class="flex bg-gray-900 rounded"><div class="w-3 bg-yellow-600 rounded-l"></div><div class="p-6 flex-1 flex justify-between"><div><h3 class="text-xl font-bold">Anvil IPA</h3><p class="text-gray-400 text-sm">West Coast IPA &middot; grapefruit, resin</p></div><span class="text-2xl font-extrabold text-yellow-500">6.5%</span></div></div>
                <div class="flex bg-gray-900 rounded"><div class="w-3 bg-red-800 rounded-l"></div><div class="p-6 flex-1 flex justify-between"><div><h3 class="text-xl font-bold">Rust Belt Red</h3><p class="text-gray-400 text-sm">Irish Red Ale &middot; toffee, biscuit</p></div><span class="text-2xl font-extrabold text-yellow-500">5.2%</span></div></div>
                <div class="flex bg-gray-900 rounded"><div class="w-3 bg-gray-600 rounded-l"></div><div class="p-6 flex-1 flex justify-between"><div><h3 class="text-xl font-bold">Slag Heap Stout</h3><p class="text-gray-400 text-sm">Oatmeal Stout &middot; coffee, dark chocolate</p></div><span class="text-2xl font-extrabold text-yellow-500">5.9%</span></div></div>
              </div>
            </section>
            <section id="taproom" class="bg-yellow-600 text-gray-900 py-16">
              <div class="max-w-6xl mx-auto px-6 grid md:grid-cols-3 gap-10">
                <div><h3 class="text-2xl font-extrabold uppercase mb-3">Taproom hours</h3><p>Wed&ndash;Thu 4pm&ndash;10pm</p><p>Fri&ndash;Sat 12pm&ndash;11pm</p><p>Sun 12pm&ndash;8pm</p></div>
                <div><h3 class="text-2xl font-extrabold uppercase mb-3">Weekend food</h3><p>Wood-fired pizza from Forno Rosso every Friday to Sunday. Dogs and kids welcome till 8pm.</p></div>
                <div><h3 class="text-2xl font-extrabold uppercase mb-3">Brewery tours</h3><p>Saturdays at 2pm and 4pm. &pound;15 including four tasters and a glass to take home.</p></div>
              </div>
            </section>
            <section id="events" class="max-w-4xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-extrabold uppercase text-yellow-500 mb-8">What's on</h2>
              <div class="space-y-4">
                <div class="flex items-center bg-gray-900 p-4"><div class="w-20 text-center border-r border-gray-700 mr-6"><p class="text-3xl font-extrabold text-yellow-500">07</p><p class="text-xs uppercase">Nov</p></div><div><p class="font-bold text-lg">Pub quiz with Big Steve</p><p class="text-sm text-gray-400">8pm &middot; teams of up to six &middot; bar tab prize</p></div></div>
                <div class="flex items-center bg-gray-900 p-4"><div class="w-20 text-center border-r border-gray-700 mr-6"><p class="text-3xl font-extrabold text-yellow-500">15</p><p class="text-xs uppercase">Nov</p></div><div><p class="font-bold text-lg">Live: The Copper Kettles</p><p class="text-sm text-gray-400">9pm &middot; folk and bluegrass &middot; free entry</p></div></div>
                <div class="flex items-center bg-gray-900 p-4"><div class="w-20 text-center border-r border-gray-700 mr-6"><p class="text-3xl font-extrabold text-yellow-500">23</p><p class="text-xs uppercase">Nov</p></div><div><p class="font-bold text-lg">Winter Warmer launch</p><p class="text-sm text-gray-400">From noon &middot; first pour of our 8% spiced porter</p></div></div>
              </div>
            </section>
            <footer class="bg-gray-900 text-gray-500 text-xs uppercase tracking-widest text-center py-6">Iron Hop Brewing Co. &middot; Foundry Yard, Sheffield &middot; Please drink responsibly</footer>
        """,
    ),
    # f022 -- hiking club: forest green, upcoming hikes with difficulty badges, membership
    AuthoredPage(
        description=words("""
            I'm on the committee of a volunteer-run hiking club. We do day walks every weekend and a
            few longer trips each year. We'd like a website that feels outdoorsy and friendly, that
            makes newcomers feel welcome whatever their fitness. Please include a list of our upcoming
            hikes with the date, distance and how hard each one is, a few photos from past walks,
            what membership costs and includes, and who to contact."""),
        title="Ridgeline Hiking Club",
        body_class="bg-white text-gray-800",
        body="""
            <section class="bg-green-800 text-white">
              <nav class="max-w-6xl mx-auto px-6 py-5 flex justify-between items-center"><span class="text-xl font-bold">&#9650; Ridgeline Hiking Club</span><div class="space-x-6 text-sm text-green-100"><a href="#hikes">Hikes</a><a href="#join">Join</a><a href="#contact">Contact</a></div></nav>
              <div class="max-w-6xl mx-auto px-6 pt-10 pb-20 grid md:grid-cols-3 gap-10 items-end">
                <div class="md:col-span-2"><h1 class="text-5xl font-bold leading-tight mb-4">Boots on. Phones off. See you at the trailhead.</h1><p class="text-lg text-green-100">A friendly club of 300 walkers exploring the hills every Saturday and Sunday since 1974.</p></div>
                <a href="#join" class="bg-yellow-400 text-green-900 font-bold text-center rounded-lg px-6 py-4 hover:bg-yellow-300">Come on a free taster walk</a>
              </div>
            </section>
            <section id="hikes" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-bold text-green-800 mb-8">Upcoming hikes</h2>
              <div class="overflow-hidden rounded-lg border border-gray-200">
                <div class="grid grid-cols-12 bg-gray-100 text-xs uppercase tracking-wider text-gray-500 px-6 py-3"><span class="col-span-2">Date</span><span class="col-span-5">Route</span><span class="col-span-2">Distance</span><span class="col-span-3">Grade</span></div>
                <div class="grid grid-cols-12 items-center px-6 py-4 border-t border-gray-200"><span class="col-span-2 font-semibold">Sat 9 Nov</span><span class="col-span-5">Kinder Scout Plateau Circuit</span><span class="col-span-2">14 km</span><span class="col-span-3"><span class="bg-red-100 text-red-700 text-xs font-bold rounded-full px-3 py-1">Strenuous</span></span></div>
                <div class="grid grid-cols-12 items-center px-6 py-4 border-t border-gray-200"><span class="col-span-2 font-semibold">Sun 10 Nov</span><span class="col-span-5">Dovedale &amp; Thorpe Cloud</span><span class="col-span-2">9 km</span><span class="col-span-3"><span class="bg-green-100 text-green-700 text-xs font-bold rounded-full px-3 py-1">Easy</span></span></div>
                <div class="grid grid-cols-12 items-center px-6 py-4 border-t border-gray-200"><span class="col-span-2 font-semibold">Sat 16 Nov</span><span class="col-span-5">Stanage Edge Ridge Walk</span><span class="col-span-2">12 km</span><span class="col-span-3"><span class="bg-yellow-100 text-yellow-700 text-xs font-bold rounded-full px-3 py-1">Moderate</span></span></div>
                <div class="grid grid-cols-12 items-center px-6 py-4 border-t border-gray-200"><span class="col-span-2 font-semibold">Sun 24 Nov</span><span class="col-span-5">Ladybower Reservoir Loop</span><span class="col-span-2">8 km</span><span class="col-span-3"><span class="bg-green-100 text-green-700 text-xs font-bold rounded-full px-3 py-1">Easy</span></span></div>
                <div class="grid grid-cols-12 items-center px-6 py-4 border-t border-gray-200"><span class="col-span-2 font-semibold">14&ndash;17 Feb</span><span class="col-span-5">Lake District Winter Weekend</span><span class="col-span-2">4 days</span><span class="col-span-3"><span class="bg-yellow-100 text-yellow-700 text-xs font-bold rounded-full px-3 py-1">Moderate</span></span></div>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 pb-16 grid grid-cols-2 md:grid-cols-4 gap-3">
              <img src="https://picsum.photos/id/48/400/300" alt="Group on a summit" class="w-full h-40 object-cover rounded-lg">
              <img src="https://picsum.photos/id/48/400/300" alt="Crossing a stream" class="w-full h-40 object-cover rounded-lg">
              <img src="https://picsum.photos/id/48/400/300" alt="Lunch stop" class="w-full h-40 object-cover rounded-lg">
              <img src="https://picsum.photos/id/48/400/300" alt="Sunset on the ridge" class="w-full h-40 object-cover rounded-lg">
            </section>
            <section id="join" class="bg-green-50 py-16">
              <div class="max-w-4xl mx-auto px-6 grid md:grid-cols-2 gap-10 items-center">
                <div><h2 class="text-3xl font-bold text-green-800 mb-4">Membership</h2><p class="mb-4">Just &pound;25 a year (&pound;15 for students and over-65s). Your first two walks are free.</p><ul class="space-y-2 text-sm"><li>&#10003; Over 100 led walks a year</li><li>&#10003; Discounted residential trips</li><li>&#10003; Navigation and first-aid courses</li><li>&#10003; Members' discount at Peak Outdoor</li></ul></div>
                <div class="bg-white rounded-xl shadow p-8 text-center"><p class="text-gray-500">Annual membership</p><p class="text-5xl font-bold text-green-800 my-3">&pound;25</p><a href="#" class="block bg-green-700 text-white rounded-lg py-3 font-semibold">Join the club</a></div>
              </div>
            </section>
            <footer id="contact" class="bg-green-900 text-green-100 text-sm">
              <div class="max-w-6xl mx-auto px-6 py-8 flex flex-col md:flex-row justify-between"><span>Walks secretary: Pat Oduya &middot; walks@ridgeline.example</span><span>Affiliated to the Ramblers &middot; &copy; 2024</span></div>
            </footer>
        """,
    ),
    # f023 -- language school: blue and red, language cards, level ladder, pricing table
    AuthoredPage(
        description=words("""
            I run a language school offering evening and weekend courses in Spanish, French,
            German, Italian, Japanese and Mandarin for adults. I want a website that feels
            international, lively and well-organised, so professionals trust that they'll actually
            make progress. It should show which languages we teach, explain the course levels from
            beginner to advanced, compare course formats and prices, and offer a free level test."""),
        title="Babel Language Academy",
        body_class="bg-gray-50 text-gray-800",
        body="""
            <header class="bg-white shadow-sm">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-4"><span class="text-2xl font-bold text-blue-700">babel<span class="text-red-500">.</span>academy</span><a href="#test" class="text-sm font-semibold text-white bg-red-500 rounded px-4 py-2">Free level test</a></div>
            </header>
            <section class="max-w-6xl mx-auto px-6 py-16 text-center">
              <h1 class="text-5xl font-bold mb-4">Speak with confidence in <span class="text-blue-700">12 weeks</span>.</h1>
              <p class="text-xl text-gray-600 max-w-2xl mx-auto">Small evening and weekend classes with native-speaking teachers, in the city centre or online.</p>
            </section>
            <section class="max-w-6xl mx-auto px-6 grid grid-cols-2 md:grid-cols-6 gap-4">
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-red-500">ES</p><p class="font-semibold mt-2">Spanish</p></div>
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-blue-700">FR</p><p class="font-semibold mt-2">French</p></div>
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-yellow-500">DE</p><p class="font-semibold mt-2">German</p></div>
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-green-600">IT</p><p class="font-semibold mt-2">Italian</p></div>
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-red-500">JA</p><p class="font-semibold mt-2">Japanese</p></div>
              <div class="bg-white rounded-lg shadow p-5 text-center"><p class="text-3xl font-bold text-yellow-500">ZH</p><p class="font-semibold mt-2">Mandarin</p></div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold text-center mb-10">Six levels, one clear path</h2>
              <div class="flex flex-col md:flex-row items-stretch gap-2">
                <div class="flex-1 bg-blue-100 rounded p-4"><p class="font-bold text-blue-700">A1</p><p class="text-sm">Absolute beginner</p></div>
                <div class="flex-1 bg-blue-200 rounded p-4 md:mt-4"><p class="font-bold text-blue-800">A2</p><p class="text-sm">Everyday basics</p></div>
                <div class="flex-1 bg-blue-300 rounded p-4 md:mt-8"><p class="font-bold text-blue-900">B1</p><p class="text-sm">Independent</p></div>
                <div class="flex-1 bg-blue-500 text-white rounded p-4 md:mt-12"><p class="font-bold">B2</p><p class="text-sm">Confident at work</p></div>
                <div class="flex-1 bg-blue-700 text-white rounded p-4 md:mt-16"><p class="font-bold">C1</p><p class="text-sm">Advanced</p></div>
                <div class="flex-1 bg-blue-900 text-white rounded p-4 md:mt-20"><p class="font-bold">C2</p><p class="text-sm">Near-native</p></div>
              </div>
            </section>
            <section class="max-w-5xl mx-auto px-6 pb-20">
              <h2 class="text-3xl font-bold text-center mb-10">Course formats</h2>
              <table class="w-full bg-white shadow rounded-lg overflow-hidden text-center">
                <thead><tr class="bg-blue-700 text-white"><th class="py-4 px-4 text-left">&nbsp;</th><th class="py-4 px-4">Group</th><th class="py-4 px-4 bg-red-500">Semi-private</th><th class="py-4 px-4">One-to-one</th></tr></thead>
                <tbody class="divide-y divide-gray-100">
                  <tr><td class="py-3 px-4 text-left font-semibold">Class size</td><td>6&ndash;10</td><td>2&ndash;4</td><td>1</td></tr>
                  <tr><td class="py-3 px-4 text-left font-semibold">Hours per week</td><td>3</td><td>3</td><td>flexible</td></tr>
                  <tr><td class="py-3 px-4 text-left font-semibold">Online option</td><td>&#10003;</td><td>&#10003;</td><td>&#10003;</td></tr>
                  <tr><td class="py-3 px-4 text-left font-semibold">Price (12 weeks)</td><td class="font-bold">&pound;290</td><td class="font-bold">&pound;540</td><td class="font-bold">&pound;45/hour</td></tr>
                </tbody>
              </table>
            </section>
            <section id="test" class="bg-red-500 text-white py-14 text-center px-6">
              <h2 class="text-3xl font-bold mb-3">Not sure where to start?</h2>
              <p class="mb-6 text-red-100">Take our free 15-minute online level test and get a course recommendation by email.</p>
              <a href="#" class="inline-block bg-white text-red-500 font-bold rounded px-8 py-3">Start the test</a>
            </section>
            <footer class="text-center text-sm text-gray-500 py-6">Babel Language Academy &middot; 40 Queen Street, Edinburgh &middot; &copy; 2024</footer>
        """,
    ),
    # f024 -- cleaning service: light, three packages, how-it-works steps, testimonial cards
    AuthoredPage(
        description=words("""
            I started a home cleaning company with a small team of trusted cleaners. Our customers
            are busy families and professionals. I'd like a website that feels fresh, bright and
            spotless, and makes booking feel effortless. It should explain our cleaning packages with
            prices, show how booking works in a few steps, include reviews from happy customers, and
            mention that all our cleaners are vetted and insured."""),
        title="Sparkle Home Cleaning",
        body_class="bg-white text-gray-700",
        body="""
            <header class="max-w-6xl mx-auto px-6 py-5 flex justify-between items-center">
              <span class="text-2xl font-bold text-blue-500">sparkle<span class="text-pink-400">*</span></span>
              <nav class="hidden md:flex items-center space-x-8 text-sm"><a href="#packages">Packages</a><a href="#how">How it works</a><a href="#reviews">Reviews</a><a href="#" class="bg-blue-500 text-white rounded-full px-5 py-2 font-semibold">Book a clean</a></nav>
            </header>
            <section class="bg-gradient-to-br from-blue-50 to-pink-50">
              <div class="max-w-6xl mx-auto px-6 py-20 text-center">
                <h1 class="text-5xl font-bold text-gray-900 mb-5">Come home to a spotless house.</h1>
                <p class="text-lg max-w-xl mx-auto mb-8">Reliable, vetted cleaners in Denver and Boulder. Book in 60 seconds, reschedule any time.</p>
                <div class="inline-flex bg-white rounded-full shadow-lg p-2"><input type="text" placeholder="Enter your ZIP code" class="px-5 py-3 rounded-full focus:outline-none"><button class="bg-blue-500 text-white rounded-full px-6 py-3 font-semibold">See prices</button></div>
                <p class="text-sm text-gray-500 mt-6">&#9733; 4.9 from 1,800+ reviews &middot; Fully insured &middot; Background-checked cleaners</p>
              </div>
            </section>
            <section id="packages" class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold text-gray-900 text-center mb-12">Choose your clean</h2>
              <div class="grid md:grid-cols-3 gap-8">
                <div class="rounded-2xl border border-gray-200 p-8"><h3 class="text-lg font-bold text-gray-900">Regular</h3><p class="text-sm mb-4">Weekly or fortnightly upkeep</p><p class="text-4xl font-bold text-blue-500 mb-6">$119</p><ul class="text-sm space-y-2"><li>Kitchen &amp; bathrooms</li><li>Dusting and vacuuming</li><li>Beds made, bins emptied</li></ul></div>
                <div class="rounded-2xl bg-blue-500 text-white p-8 shadow-xl"><h3 class="text-lg font-bold">Deep Clean</h3><p class="text-sm text-blue-100 mb-4">Top to bottom, once in a while</p><p class="text-4xl font-bold mb-6">$249</p><ul class="text-sm space-y-2"><li>Everything in Regular</li><li>Inside oven and fridge</li><li>Skirting, doors and windowsills</li></ul></div>
                <div class="rounded-2xl border border-gray-200 p-8"><h3 class="text-lg font-bold text-gray-900">Move-out</h3><p class="text-sm mb-4">Get your deposit back</p><p class="text-4xl font-bold text-blue-500 mb-6">$329</p><ul class="text-sm space-y-2"><li>Empty-home deep clean</li><li>Cabinets inside and out</li><li>Landlord checklist included</li></ul></div>
              </div>
            </section>
            <section id="how" class="bg-gray-50 py-20">
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-3 gap-10 text-center">
                <div><span class="inline-block w-12 h-12 leading-loose rounded-full bg-pink-100 text-pink-500 text-xl font-bold mb-4">1</span><h3 class="font-bold text-gray-900 mb-2">Book online</h3><p class="text-sm">Pick a package, a date and a time that suits you.</p></div>
                <div><span class="inline-block w-12 h-12 leading-loose rounded-full bg-pink-100 text-pink-500 text-xl font-bold mb-4">2</span><h3 class="font-bold text-gray-900 mb-2">We clean</h3><p class="text-sm">The same friendly cleaner arrives with all supplies.</p></div>
                <div><span class="inline-block w-12 h-12 leading-loose rounded-full bg-pink-100 text-pink-500 text-xl font-bold mb-4">3</span><h3 class="font-bold text-gray-900 mb-2">You relax</h3><p class="text-sm">Not happy? We'll come back and re-clean for free.</p></div>
              </div>
            </section>
            <section id="reviews" class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="text-3xl font-bold text-gray-900 text-center mb-12">Happy homes</h2>
              <div class="grid md:grid-cols-3 gap-6">
                <div class="bg-white rounded-2xl shadow-md p-6"><p class="text-yellow-400 mb-3">&#9733;&#9733;&#9733;&#9733;&#9733;</p><p class="mb-4">&ldquo;Maria has cleaned for us every other Friday for a year. The house smells amazing and she even waters the plants.&rdquo;</p><div class="flex items-center space-x-3"><img src="https://picsum.photos/id/48/80/80" alt="Jess" class="w-10 h-10 rounded-full object-cover"><span class="font-semibold text-gray-900 text-sm">Jess T., Boulder</span></div></div>
                <div class="bg-white rounded-2xl shadow-md p-6"><p class="text-yellow-400 mb-3">&#9733;&#9733;&#9733;&#9733;&#9733;</p><p class="mb-4">&ldquo;Booked a move-out clean on a Tuesday, it was done Thursday, and we got our full deposit back.&rdquo;</p><div class="flex items-center space-x-3"><img src="https://picsum.photos/id/48/80/80" alt="Omar" class="w-10 h-10 rounded-full object-cover"><span class="font-semibold text-gray-900 text-sm">Omar K., Denver</span></div></div>
                <div class="bg-white rounded-2xl shadow-md p-6"><p class="text-yellow-400 mb-3">&#9733;&#9733;&#9733;&#9733;&#9734;</p><p class="mb-4">&ldquo;With twins and two jobs, this is the best money we spend each month. Easy to reschedule too.&rdquo;</p><div class="flex items-center space-x-3"><img src="https://picsum.photos/id/48/80/80" alt="Rachel" class="w-10 h-10 rounded-full object-cover"><span class="font-semibold text-gray-900 text-sm">Rachel P., Lakewood</span></div></div>
              </div>
            </section>
            <footer class="border-t border-gray-100 py-8 text-center text-sm text-gray-400">Sparkle Home Cleaning LLC &middot; Licensed, bonded and insured &middot; &copy; 2024</footer>
        """,
    ),
    # f025 -- museum exhibition: black and gold, centred serif, exhibit rooms, visit info
    AuthoredPage(
        description=words("""
            I work at a city museum and we're launching a temporary exhibition about ancient Egypt,
            with objects on loan from several collections. The exhibition needs its own web page that
            feels grand, mysterious and scholarly, like walking into a tomb by torchlight. It should
            announce the exhibition and its dates, walk people through the main themes or rooms,
            highlight a star object, and give practical visiting information with ticket prices."""),
        title="Echoes of the Nile &mdash; City Museum",
        body_class="bg-black text-gray-300 font-serif",
        body="""
            <header class="flex justify-between items-center px-10 py-6 border-b border-yellow-800 font-sans text-xs uppercase tracking-widest">
              <span class="text-yellow-500">City Museum</span>
              <nav class="space-x-8"><a href="#rooms" class="hover:text-yellow-500">The exhibition</a><a href="#visit" class="hover:text-yellow-500">Visit</a><a href="#visit" class="text-black bg-yellow-500 px-4 py-2">Book tickets</a></nav>
            </header>
            <section class="text-center px-10 py-28">
              <p class="font-sans text-xs uppercase tracking-widest text-yellow-600 mb-6">14 March &ndash; 31 August 2025</p>
              <h1 class="text-7xl text-yellow-500 tracking-wide mb-6">Echoes of the Nile</h1>
              <p class="text-xl italic max-w-2xl mx-auto text-gray-400">Three thousand years of life, death and the afterlife along the river that made a civilisation.</p>
              <div class="w-24 h-px bg-yellow-600 mx-auto mt-12"></div>
            </section>
            <section id="rooms" class="max-w-6xl mx-auto px-10 pb-24">
              <div class="grid md:grid-cols-3 gap-px bg-yellow-900 border border-yellow-900">
              <div class="bg-black p-10"><p class="font-sans text-yellow-600 text-xs tracking-widest mb-4">ROOM I</p><h3 class="text-2xl text-white mb-3">The Gift of the River</h3><p class="text-sm leading-relaxed">Farming, floods and the calendar: how the Nile shaped daily life from the Old Kingdom onwards.</p></div>
              <div class="bg-black p-10"><p class="font-sans text-yellow-600 text-xs tracking-widest mb-4">ROOM II</p><h3 class="text-2xl text-white mb-3">Gods and Kings</h3><p class="text-sm leading-relaxed">Temple statues, royal portraits and the rituals that held the world in balance.</p></div>
              <div class="bg-black p-10"><p class="font-sans text-yellow-600 text-xs tracking-widest mb-4">ROOM III</p><h3 class="text-2xl text-white mb-3">The Journey Beyond</h3><p class="text-sm leading-relaxed">Coffins, amulets and the Book of the Dead, including a newly conserved painted sarcophagus.</p></div>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-10 pb-24 grid md:grid-cols-2 gap-16 items-center">
              <img src="https://picsum.photos/id/48/560/700" alt="Gilded coffin mask" class="w-full h-96 object-cover border border-yellow-800">
              <div>
                <p class="font-sans text-xs uppercase tracking-widest text-yellow-600 mb-4">Star object</p>
                <h2 class="text-4xl text-white mb-6">The Coffin of Nesmin</h2>
                <p class="leading-relaxed mb-4">Carved around 300 BC for a priest of Akhmim, this cedar coffin is covered in spells, stars and a gilded face. It has not left Lyon in over a century.</p>
                <p class="italic text-gray-500">On loan from the Musée des Confluences.</p>
              </div>
            </section>
            <section id="visit" class="border-t border-yellow-800 font-sans">
              <div class="max-w-6xl mx-auto px-10 py-16 grid md:grid-cols-3 gap-10 text-sm">
                <div><h3 class="text-yellow-500 uppercase tracking-widest text-xs mb-4">Opening</h3><p>Daily 10:00 &ndash; 18:00</p><p>Fridays until 21:00</p><p class="text-gray-500 mt-2">Last entry one hour before closing</p></div>
                <div><h3 class="text-yellow-500 uppercase tracking-widest text-xs mb-4">Tickets</h3><p>Adult &pound;18 &middot; Concession &pound;14</p><p>Under-12s free with an adult</p><p class="text-gray-500 mt-2">Members go free, as often as they like</p></div>
                <div><h3 class="text-yellow-500 uppercase tracking-widest text-xs mb-4">Access</h3><p>Step-free entrance on Castle Street</p><p>Audio guide in six languages</p><p class="text-gray-500 mt-2">BSL tours first Saturday of each month</p></div>
              </div>
            </section>
            <footer class="text-center font-sans text-xs text-gray-600 py-8 border-t border-gray-900">City Museum &middot; Castle Street &middot; Registered charity 1047721</footer>
        """,
    ),
    # f026 -- car rental: booking widget hero, fleet cards, perks row
    AuthoredPage(
        description=words("""
            We're a regional car rental company with branches at the airport and downtown. I need a
            website where people can quickly start a booking, with pick-up place and dates, and then
            browse our cars by type with a daily price and the key details like seats and gearbox. It
            should feel efficient, modern and reliable, with a few selling points like free
            cancellation and unlimited mileage, and our branch details at the bottom."""),
        title="Roadway Rentals",
        body_class="bg-gray-100 text-gray-800",
        body="""
            <section class="bg-gray-900 text-white">
              <nav class="max-w-6xl mx-auto flex justify-between items-center px-6 py-5"><span class="text-2xl font-extrabold">ROAD<span class="text-red-500">WAY</span></span><div class="hidden md:flex space-x-8 text-sm text-gray-300"><a href="#fleet">Our fleet</a><a href="#">Deals</a><a href="#branches">Branches</a><a href="#">Sign in</a></div></nav>
              <div class="max-w-6xl mx-auto px-6 pt-12 pb-28">
                <h1 class="text-5xl font-extrabold mb-3">Your keys are waiting.</h1>
                <p class="text-lg text-gray-300">Airport and downtown pick-up, from $29 a day.</p>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 -mt-16">
              <form class="bg-white rounded-xl shadow-xl p-6 grid md:grid-cols-5 gap-4 items-end text-sm">
                <label class="md:col-span-2"><span class="block font-semibold mb-1">Pick-up location</span><input type="text" placeholder="Airport, Terminal 2" class="w-full border border-gray-300 rounded-lg px-3 py-3"></label>
                <label><span class="block font-semibold mb-1">Pick-up date</span><input type="text" placeholder="12 Jul, 10:00" class="w-full border border-gray-300 rounded-lg px-3 py-3"></label>
                <label><span class="block font-semibold mb-1">Return date</span><input type="text" placeholder="19 Jul, 10:00" class="w-full border border-gray-300 rounded-lg px-3 py-3"></label>
                <button class="bg-red-500 hover:bg-red-600 text-white font-bold rounded-lg py-3">Find cars</button>
              </form>
            </section>
            <section id="fleet" class="max-w-6xl mx-auto px-6 py-16">
              <div class="flex flex-wrap gap-2 mb-8 text-sm font-semibold"><span class="bg-gray-900 text-white rounded-full px-4 py-2">All</span><span class="bg-white rounded-full px-4 py-2">Economy</span><span class="bg-white rounded-full px-4 py-2">SUV</span><span class="bg-white rounded-full px-4 py-2">Electric</span><span class="bg-white rounded-full px-4 py-2">Van</span></div>
              <div class="grid sm:grid-cols-2 lg:grid-cols-4 gap-6">
                <div class="bg-white rounded-xl p-5"><img src="https://picsum.photos/id/48/300/180" alt="Toyota Yaris" class="w-full h-32 object-cover rounded-lg mb-4"><p class="text-xs text-gray-500 uppercase">Economy</p><h3 class="font-bold text-lg">Toyota Yaris</h3><p class="text-xs text-gray-500 mb-4">5 seats &middot; Manual &middot; A/C</p><div class="flex justify-between items-center"><span class="text-xl font-extrabold">$29<span class="text-xs font-normal text-gray-500">/day</span></span><a href="#" class="text-red-500 font-bold text-sm">Select</a></div></div>
                <div class="bg-white rounded-xl p-5"><img src="https://picsum.photos/id/48/300/180" alt="VW Golf" class="w-full h-32 object-cover rounded-lg mb-4"><p class="text-xs text-gray-500 uppercase">Compact</p><h3 class="font-bold text-lg">VW Golf</h3><p class="text-xs text-gray-500 mb-4">5 seats &middot; Automatic &middot; A/C</p><div class="flex justify-between items-center"><span class="text-xl font-extrabold">$39<span class="text-xs font-normal text-gray-500">/day</span></span><a href="#" class="text-red-500 font-bold text-sm">Select</a></div></div>
                <div class="bg-white rounded-xl p-5"><img src="https://picsum.photos/id/48/300/180" alt="Kia Sportage" class="w-full h-32 object-cover rounded-lg mb-4"><p class="text-xs text-gray-500 uppercase">SUV</p><h3 class="font-bold text-lg">Kia Sportage</h3><p class="text-xs text-gray-500 mb-4">5 seats &middot; Automatic &middot; 4x4</p><div class="flex justify-between items-center"><span class="text-xl font-extrabold">$58<span class="text-xs font-normal text-gray-500">/day</span></span><a href="#" class="text-red-500 font-bold text-sm">Select</a></div></div>
                <div class="bg-white rounded-xl p-5"><img src="https://picsum.photos/id/48/300/180" alt="Tesla Model 3" class="w-full h-32 object-cover rounded-lg mb-4"><p class="text-xs text-gray-500 uppercase">Electric</p><h3 class="font-bold text-lg">Tesla Model 3</h3><p class="text-xs text-gray-500 mb-4">5 seats &middot; Automatic &middot; 490 km range</p><div class="flex justify-between items-center"><span class="text-xl font-extrabold">$72<span class="text-xs font-normal text-gray-500">/day</span></span><a href="#" class="text-red-500 font-bold text-sm">Select</a></div></div>
              </div>
            </section>
            <section class="bg-white py-14">
              <div class="max-w-6xl mx-auto px-6 grid grid-cols-2 md:grid-cols-4 gap-8 text-center">
                <div><p class="text-red-500 text-3xl font-extrabold">0</p><p class="font-semibold">Free cancellation up to 48h</p></div>
                <div><p class="text-red-500 text-3xl font-extrabold">&infin;</p><p class="font-semibold">Unlimited mileage</p></div>
                <div><p class="text-red-500 text-3xl font-extrabold">24/7</p><p class="font-semibold">Roadside assistance</p></div>
                <div><p class="text-red-500 text-3xl font-extrabold">2 yrs</p><p class="font-semibold">Average car age</p></div>
              </div>
            </section>
            <footer id="branches" class="bg-gray-900 text-gray-400 text-sm">
              <div class="max-w-6xl mx-auto px-6 py-10 grid md:grid-cols-3 gap-8">
                <div><p class="text-white font-bold mb-2">Airport</p><p>Terminal 2, Arrivals Hall</p><p>Open 24 hours</p></div>
                <div><p class="text-white font-bold mb-2">Downtown</p><p>118 Central Avenue</p><p>Mon&ndash;Sat 7am&ndash;9pm</p></div>
                <div><p class="text-white font-bold mb-2">Call us</p><p>(555) 300-7623</p><p>help@roadway.example</p></div>
              </div>
            </footer>
        """,
    ),
    # f027 -- wedding planner: white and blush, elegant, services list, gallery, quote
    AuthoredPage(
        description=words("""
            I'm a wedding planner who organises everything from intimate elopements to big country
            house weddings. My site should feel elegant, romantic and calm, so that stressed couples
            feel they can hand everything over to me. I'd like a lovely opening with a photo, a
            gentle introduction to who I am, my planning packages, a small gallery of weddings I've
            done, a kind word from a couple, and a simple enquiry form."""),
        title="Everafter Events &middot; Wedding Planning",
        body_class="bg-white text-gray-600",
        body="""
            <header class="text-center py-8 border-b border-pink-100">
              <p class="font-serif text-3xl tracking-widest text-gray-800">EVERAFTER</p>
              <p class="text-xs uppercase tracking-widest text-pink-400 mt-1">Wedding planning &amp; design</p>
            </header>
            <section class="relative">
              <img src="https://picsum.photos/id/48/1400/700" alt="Couple under an arch of roses" class="w-full h-96 object-cover">
              <div class="absolute inset-0 flex items-center justify-center"><div class="bg-white bg-opacity-80 px-12 py-10 text-center"><h1 class="font-serif text-4xl text-gray-800 mb-3">Your day, beautifully handled</h1><p class="text-sm uppercase tracking-widest text-pink-500">Cotswolds &middot; London &middot; Destination</p></div></div>
            </section>
            <section class="max-w-3xl mx-auto px-6 py-20 text-center">
              <h2 class="font-serif text-3xl text-gray-800 mb-6">Hello, I'm Charlotte</h2>
              <p class="leading-loose">For twelve years I've helped couples plan weddings that feel entirely like them. I look after the suppliers, the spreadsheets and the timings, so you can simply enjoy being engaged and, on the day, be fully present.</p>
            </section>
            <section class="bg-pink-50 py-20">
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-3 gap-8 text-center">
                <div class="bg-white p-8"><h3 class="font-serif text-xl text-gray-800 mb-2">On the Day</h3><p class="text-pink-500 text-sm mb-4">from &pound;1,200</p><p class="text-sm">You plan, I run the day so nothing slips and nobody has to hold a clipboard.</p></div>
                <div class="bg-white p-8 border-t-4 border-pink-300"><h3 class="font-serif text-xl text-gray-800 mb-2">Partial Planning</h3><p class="text-pink-500 text-sm mb-4">from &pound;3,500</p><p class="text-sm">Six months of support, supplier bookings and a detailed timeline.</p></div>
                <div class="bg-white p-8"><h3 class="font-serif text-xl text-gray-800 mb-2">Full Planning</h3><p class="text-pink-500 text-sm mb-4">from &pound;6,800</p><p class="text-sm">From venue hunt to last dance, every detail designed and managed.</p></div>
              </div>
            </section>
            <section class="max-w-6xl mx-auto px-6 py-20">
              <h2 class="font-serif text-3xl text-gray-800 text-center mb-10">Recent celebrations</h2>
              <div class="grid grid-cols-3 gap-4">
                <img src="https://picsum.photos/id/48/400/500" alt="Barn reception" class="w-full h-72 object-cover">
                <img src="https://picsum.photos/id/48/400/500" alt="Table flowers" class="w-full h-72 object-cover">
                <img src="https://picsum.photos/id/48/400/500" alt="Lakeside ceremony" class="w-full h-72 object-cover">
              </div>
            </section>
            <section class="max-w-3xl mx-auto px-6 pb-20 text-center">
              <p class="font-serif text-2xl italic text-gray-800 leading-relaxed">&ldquo;Charlotte thought of things we never would have. Our families still talk about how relaxed we looked.&rdquo;</p>
              <p class="text-xs uppercase tracking-widest text-pink-500 mt-6">Hannah &amp; James, Barnsley House</p>
            </section>
            <section class="bg-gray-50 py-20">
              <form class="max-w-xl mx-auto px-6 space-y-4">
                <h2 class="font-serif text-3xl text-gray-800 text-center mb-6">Tell me about your wedding</h2>
                <div class="grid grid-cols-2 gap-4"><input type="text" placeholder="Your names" class="border border-gray-300 bg-white px-4 py-3"><input type="text" placeholder="Wedding date" class="border border-gray-300 bg-white px-4 py-3"></div>
                <input type="email" placeholder="Email address" class="w-full border border-gray-300 bg-white px-4 py-3">
                <textarea rows="4" placeholder="Venue, guest numbers, anything you're dreaming of" class="w-full border border-gray-300 bg-white px-4 py-3"></textarea>
                <button class="w-full bg-gray-800 text-white uppercase tracking-widest text-sm py-4 hover:bg-gray-700">Send enquiry</button>
              </form>
            </section>
            <footer class="text-center text-xs uppercase tracking-widest text-gray-400 py-8">Everafter Events &middot; charlotte@everafter.example</footer>
        """,
    ),
    # f028 -- barber shop: charcoal with red, price list two columns, barbers, booking band
    AuthoredPage(
        description=words("""
            I own an old-school barber shop: hot towel shaves, skin fades, beard trims, a bit of
            banter. I'd like a website that feels classic and masculine with a vintage edge but still
            modern. It should show our services and prices, introduce the barbers with their
            specialties, give our opening hours, and make booking online or walking in both feel
            easy."""),
        title="Sharp &amp; Co. Barbers",
        body_class="bg-gray-900 text-gray-200",
        body="""
            <header class="text-center py-10 border-b border-gray-700">
              <p class="text-xs uppercase tracking-widest text-red-500">Est. 2009</p>
              <h1 class="text-5xl font-serif font-bold text-white mt-2">Sharp &amp; Co.</h1>
              <p class="text-xs uppercase tracking-widest text-gray-400 mt-2">Traditional Barbers &middot; Glasgow</p>
            </header>
            <section class="relative">
              <img src="https://picsum.photos/id/48/1400/600" alt="Barber chairs" class="w-full h-96 object-cover opacity-60">
              <div class="absolute inset-0 flex flex-col items-center justify-center text-center">
                <p class="text-3xl font-serif text-white mb-6">Walk in a regular. Walk out sharp.</p>
                <div class="space-x-4"><a href="#" class="bg-red-700 hover:bg-red-600 text-white uppercase tracking-wider text-sm font-bold px-6 py-3">Book online</a><a href="#hours" class="border border-white text-white uppercase tracking-wider text-sm font-bold px-6 py-3">Walk-in hours</a></div>
              </div>
            </section>
            <section class="max-w-4xl mx-auto px-6 py-20">
              <h2 class="text-center text-3xl font-serif text-white mb-12">Services</h2>
              <div class="grid md:grid-cols-2 gap-x-16 gap-y-8">
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">Classic cut</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;22</span></div><p class="text-sm text-gray-400">Scissor or clipper, wash and style.</p></div>
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">Skin fade</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;25</span></div><p class="text-sm text-gray-400">Razor-finished, blended to perfection.</p></div>
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">Hot towel shave</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;28</span></div><p class="text-sm text-gray-400">Straight razor, hot towels, balm.</p></div>
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">Beard sculpt</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;15</span></div><p class="text-sm text-gray-400">Shape, line-up and beard oil.</p></div>
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">Father &amp; son</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;35</span></div><p class="text-sm text-gray-400">Two cuts, one chair after the other.</p></div>
                <div><div class="flex items-baseline"><span class="font-bold uppercase tracking-wide">The Works</span><span class="flex-1 border-b border-dotted border-gray-600 mx-3"></span><span class="text-red-500 font-bold">&pound;45</span></div><p class="text-sm text-gray-400">Cut, shave and a dram of whisky.</p></div>
              </div>
            </section>
            <section class="bg-gray-800 py-20">
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-3 gap-8 text-center">
                <div><img src="https://picsum.photos/id/48/300/360" alt="Callum" class="w-full h-72 object-cover mb-4 filter grayscale"><p class="font-serif text-xl text-white">Callum</p><p class="text-xs uppercase tracking-widest text-red-500">Owner &middot; shaves</p></div>
                <div><img src="https://picsum.photos/id/48/300/360" alt="Dev" class="w-full h-72 object-cover mb-4 filter grayscale"><p class="font-serif text-xl text-white">Dev</p><p class="text-xs uppercase tracking-widest text-red-500">Fades &amp; designs</p></div>
                <div><img src="https://picsum.photos/id/48/300/360" alt="Marco" class="w-full h-72 object-cover mb-4 filter grayscale"><p class="font-serif text-xl text-white">Marco</p><p class="text-xs uppercase tracking-widest text-red-500">Classic scissor cuts</p></div>
              </div>
            </section>
            <section id="hours" class="max-w-4xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-10 text-center md:text-left">
              <div><h3 class="font-serif text-2xl text-white mb-4">Hours</h3><p>Mon&ndash;Fri 9am &ndash; 7pm</p><p>Saturday 8am &ndash; 5pm</p><p>Sunday 11am &ndash; 4pm</p></div>
              <div><h3 class="font-serif text-2xl text-white mb-4">Find us</h3><p>62 Argyle Street, Glasgow G2</p><p>0141 496 0305</p><p class="text-red-500 mt-2">Walk-ins always welcome</p></div>
            </section>
            <footer class="border-t border-gray-700 text-center text-xs text-gray-500 py-6">&copy; 2024 Sharp &amp; Co. Barbers</footer>
        """,
    ),
    # f029 -- climbing gym: bold diagonal-free energy, red on charcoal, prices, classes, hours
    AuthoredPage(
        description=words("""
            We run an indoor bouldering and climbing gym. Our members are a mix of students, young
            professionals and families. I want a website with a lot of energy, sporty, punchy and
            confident. It should explain what first-timers need to know, show the prices for day
            passes and memberships, list our classes like intro sessions and kids' clubs, and give
            the opening hours. A photo of someone on the wall would be great."""),
        title="Crux Climbing Centre",
        body_class="bg-white text-gray-900",
        body="""
            <header class="bg-red-600 text-white">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-4"><span class="text-3xl font-black italic tracking-tight">CRUX</span><nav class="space-x-6 text-sm font-bold uppercase"><a href="#first">First visit</a><a href="#prices">Prices</a><a href="#classes">Classes</a><a href="#hours">Hours</a></nav></div>
            </header>
            <section class="bg-gray-900 text-white">
              <div class="max-w-6xl mx-auto grid md:grid-cols-2">
                <div class="px-6 py-20">
                  <h1 class="text-6xl font-black italic uppercase leading-none mb-6">Find your<br><span class="text-red-500">next hold.</span></h1>
                  <p class="text-lg text-gray-300 mb-8">400 boulder problems, 18-metre lead walls and a café that understands chalky hands.</p>
                  <a href="#first" class="bg-red-600 hover:bg-red-700 font-black uppercase px-8 py-4 inline-block">Book your first session</a>
                </div>
                <img src="https://picsum.photos/id/48/640/520" alt="Climber on an overhang" class="w-full h-full object-cover">
              </div>
            </section>
            <section id="first" class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-4 gap-6">
              <div class="md:col-span-1"><h2 class="text-3xl font-black uppercase italic">New to climbing?</h2></div>
              <div class="bg-gray-100 p-6"><p class="text-red-600 font-black text-2xl">01</p><p class="font-bold mt-2">Sign the waiver online</p><p class="text-sm text-gray-600">Takes two minutes, saves queuing.</p></div>
              <div class="bg-gray-100 p-6"><p class="text-red-600 font-black text-2xl">02</p><p class="font-bold mt-2">Rent shoes &amp; chalk</p><p class="text-sm text-gray-600">&pound;4 at the front desk, all sizes.</p></div>
              <div class="bg-gray-100 p-6"><p class="text-red-600 font-black text-2xl">03</p><p class="font-bold mt-2">Quick safety briefing</p><p class="text-sm text-gray-600">Ten minutes with our staff, then climb.</p></div>
            </section>
            <section id="prices" class="bg-gray-900 text-white py-16">
              <div class="max-w-6xl mx-auto px-6">
                <h2 class="text-3xl font-black uppercase italic mb-8">Prices</h2>
                <div class="grid md:grid-cols-4 gap-4">
                  <div class="border-2 border-gray-700 p-6"><p class="uppercase text-sm text-gray-400 font-bold">Day pass</p><p class="text-4xl font-black mt-2">&pound;13</p><p class="text-sm text-gray-400 mt-2">Students &pound;11</p></div>
                  <div class="border-2 border-gray-700 p-6"><p class="uppercase text-sm text-gray-400 font-bold">10-visit card</p><p class="text-4xl font-black mt-2">&pound;110</p><p class="text-sm text-gray-400 mt-2">Shareable with friends</p></div>
                  <div class="border-2 border-red-600 bg-red-600 p-6"><p class="uppercase text-sm text-red-100 font-bold">Monthly</p><p class="text-4xl font-black mt-2">&pound;49</p><p class="text-sm text-red-100 mt-2">Unlimited, cancel any time</p></div>
                  <div class="border-2 border-gray-700 p-6"><p class="uppercase text-sm text-gray-400 font-bold">Family day</p><p class="text-4xl font-black mt-2">&pound;36</p><p class="text-sm text-gray-400 mt-2">2 adults + 2 kids</p></div>
                </div>
              </div>
            </section>
            <section id="classes" class="max-w-6xl mx-auto px-6 py-16">
              <h2 class="text-3xl font-black uppercase italic mb-8">Classes</h2>
              <div class="divide-y-2 divide-gray-100">
                <div class="flex justify-between items-center py-4"><div><p class="font-bold text-lg">Intro to Bouldering</p><p class="text-sm text-gray-500">Tue &amp; Thu 7pm &middot; 90 min &middot; all equipment included</p></div><span class="font-black text-red-600">&pound;25</span></div>
                <div class="flex justify-between items-center py-4"><div><p class="font-bold text-lg">Learn to Lead</p><p class="text-sm text-gray-500">4-week course &middot; Saturdays 10am</p></div><span class="font-black text-red-600">&pound;120</span></div>
                <div class="flex justify-between items-center py-4"><div><p class="font-bold text-lg">Crux Kids Club (6&ndash;12)</p><p class="text-sm text-gray-500">Wednesdays 4:30pm &middot; term-time</p></div><span class="font-black text-red-600">&pound;10</span></div>
                <div class="flex justify-between items-center py-4"><div><p class="font-bold text-lg">Women's Climbing Social</p><p class="text-sm text-gray-500">First Sunday of the month &middot; 11am</p></div><span class="font-black text-red-600">Free</span></div>
              </div>
            </section>
            <footer id="hours" class="bg-red-600 text-white">
              <div class="max-w-6xl mx-auto px-6 py-10 flex flex-col md:flex-row justify-between font-bold"><span>Mon&ndash;Fri 10am &ndash; 10:30pm</span><span>Sat&ndash;Sun 9am &ndash; 8pm</span><span>Unit 2, Riverside Works, Nottingham</span></div>
            </footer>
        """,
    ),
    # f030 -- podcast: purple gradient, episode list with durations, hosts, subscribe buttons
    AuthoredPage(
        description=words("""
            My friend and I host a weekly science podcast where we ask experts the questions people
            are too embarrassed to ask. We need a website for the show that feels curious, playful
            and smart. It should introduce the show with the cover art, list the latest episodes with
            a short description, length and date, introduce us two hosts, and link to the apps people
            can listen on. Maybe a little box asking listeners to send in their questions."""),
        title="The Curious Mind Podcast",
        body_class="bg-gray-50 text-gray-800",
        body="""
            <section class="bg-gradient-to-r from-purple-700 to-pink-500 text-white">
              <div class="max-w-5xl mx-auto px-6 py-16 flex flex-col md:flex-row items-center gap-10">
                <img src="https://picsum.photos/id/48/300/300" alt="The Curious Mind cover art" class="w-56 h-56 object-cover rounded-2xl shadow-2xl">
                <div>
                  <p class="uppercase tracking-widest text-sm text-purple-100 mb-2">A weekly science podcast</p>
                  <h1 class="text-5xl font-extrabold mb-4">The Curious Mind</h1>
                  <p class="text-lg text-purple-100 mb-6">The questions you were too embarrassed to ask, answered by people who actually know.</p>
                  <div class="flex flex-wrap gap-3 text-sm font-semibold"><a href="#" class="bg-white text-purple-700 rounded-full px-5 py-2">Apple Podcasts</a><a href="#" class="bg-white text-purple-700 rounded-full px-5 py-2">Spotify</a><a href="#" class="bg-white bg-opacity-20 rounded-full px-5 py-2">RSS</a></div>
                </div>
              </div>
            </section>
            <section class="max-w-5xl mx-auto px-6 py-16">
              <h2 class="text-2xl font-extrabold mb-6">Latest episodes</h2>
              <div class="space-y-4">
                <div class="bg-white rounded-xl shadow-sm p-5 flex items-center gap-5"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-purple-600 text-white flex items-center justify-center font-bold">&#9654;</span><div class="flex-1"><p class="text-xs text-gray-400">Ep. 142 &middot; 4 Nov 2024 &middot; 48 min</p><h3 class="font-bold text-lg">Why do we dream?</h3><p class="text-sm text-gray-600">Sleep scientist Dr. Maya Chen on REM, memory and that recurring exam nightmare.</p></div></div>
                <div class="bg-white rounded-xl shadow-sm p-5 flex items-center gap-5"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-purple-600 text-white flex items-center justify-center font-bold">&#9654;</span><div class="flex-1"><p class="text-xs text-gray-400">Ep. 141 &middot; 28 Oct 2024 &middot; 52 min</p><h3 class="font-bold text-lg">Is the universe a simulation?</h3><p class="text-sm text-gray-600">Physicist Tom Adeyemi explains why most physicists are not losing sleep over it.</p></div></div>
                <div class="bg-white rounded-xl shadow-sm p-5 flex items-center gap-5"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-purple-600 text-white flex items-center justify-center font-bold">&#9654;</span><div class="flex-1"><p class="text-xs text-gray-400">Ep. 140 &middot; 21 Oct 2024 &middot; 41 min</p><h3 class="font-bold text-lg">How do bees decide where to live?</h3><p class="text-sm text-gray-600">Honeybee democracy, waggle dances and the smartest swarm on earth.</p></div></div>
                <div class="bg-white rounded-xl shadow-sm p-5 flex items-center gap-5"><span class="flex-shrink-0 w-12 h-12 rounded-full bg-purple-600 text-white flex items-center justify-center font-bold">&#9654;</span><div class="flex-1"><p class="text-xs text-gray-400">Ep. 139 &middot; 14 Oct 2024 &middot; 55 min</p><h3 class="font-bold text-lg">What actually is a calorie?</h3><p class="text-sm text-gray-600">A nutritionist, a chemist and a bomb calorimeter walk into a studio.</p></div></div>
              </div>
              <a href="#" class="inline-block mt-6 text-purple-700 font-semibold">All 142 episodes &rarr;</a>
            </section>
            <section class="bg-white py-16">
              <div class="max-w-5xl mx-auto px-6 grid md:grid-cols-2 gap-10">
                <div class="flex gap-5"><img src="https://picsum.photos/id/48/160/160" alt="Priya" class="w-24 h-24 rounded-full object-cover"><div><h3 class="font-extrabold text-lg">Priya Shah</h3><p class="text-sm text-purple-600 mb-2">The one with the questions</p><p class="text-sm text-gray-600">Former science teacher who still can't walk past a museum without going in.</p></div></div>
                <div class="flex gap-5"><img src="https://picsum.photos/id/48/160/160" alt="Leo" class="w-24 h-24 rounded-full object-cover"><div><h3 class="font-extrabold text-lg">Leo Marsh</h3><p class="text-sm text-purple-600 mb-2">The one who pretends to know</p><p class="text-sm text-gray-600">Radio producer and enthusiastic amateur astronomer with a very old telescope.</p></div></div>
              </div>
            </section>
            <section class="max-w-3xl mx-auto px-6 py-16">
              <div class="bg-purple-100 rounded-2xl p-8 text-center">
                <h2 class="text-2xl font-extrabold text-purple-800 mb-2">Got a question you've never dared ask?</h2>
                <p class="text-purple-700 mb-6">Send it in. If we use it on the show, we'll send you a mug.</p>
                <form class="flex flex-col sm:flex-row gap-3"><input type="text" placeholder="Why is the sky blue but sunsets red?" class="flex-1 rounded-full px-5 py-3"><button class="bg-purple-700 text-white font-semibold rounded-full px-6 py-3">Send question</button></form>
              </div>
            </section>
            <footer class="text-center text-sm text-gray-400 py-8">&copy; 2024 The Curious Mind &middot; Made with headphones in Bristol</footer>
        """,
    ),
    # f031 -- farm shop: rustic green and yellow, in-season produce, veg box scheme, farm story
    AuthoredPage(
        description=words("""
            Our family farm has a shop at the farm gate selling our own vegetables, eggs, meat and
            local cheeses, and we also deliver weekly veg boxes. I'd like a website that feels
            earthy, wholesome and honest, like a sunny Saturday at the farm. It should show what's
            in season right now, explain the veg box scheme with the box sizes and prices, tell our
            family's story, and give our shop hours and how to find us down the lane."""),
        title="Meadowbrook Farm Shop",
        body_class="bg-yellow-50 text-gray-800",
        body="""
            <nav class="bg-green-900 text-yellow-100">
              <div class="max-w-6xl mx-auto flex justify-between items-center px-6 py-4"><span class="text-xl font-serif font-bold">Meadowbrook Farm</span><div class="space-x-6 text-sm"><a href="#season">In season</a><a href="#boxes">Veg boxes</a><a href="#story">Our story</a><a href="#visit">Visit</a></div></div>
            </nav>
            <section class="max-w-6xl mx-auto px-6 py-12 grid md:grid-cols-3 gap-6">
              <div class="md:col-span-2 relative"><img src="https://picsum.photos/id/48/800/480" alt="Fields at Meadowbrook" class="w-full h-96 object-cover rounded-lg"><div class="absolute bottom-0 left-0 bg-green-900 bg-opacity-90 text-yellow-50 p-6 rounded-bl-lg rounded-tr-lg"><h1 class="text-3xl font-serif font-bold">Grown here. Sold here.</h1><p class="text-sm">Fresh from our fields to the farm gate since 1952.</p></div></div>
              <div class="bg-yellow-400 rounded-lg p-8 flex flex-col justify-between"><div><p class="uppercase text-xs font-bold tracking-widest text-green-900">This weekend</p><h2 class="text-2xl font-serif font-bold text-green-900 mt-2 mb-3">Pumpkin picking is open!</h2><p class="text-green-900 text-sm">Pick your own from 30 varieties, Saturday and Sunday 10am&ndash;4pm. &pound;3 per pumpkin.</p></div><a href="#visit" class="mt-6 bg-green-900 text-yellow-100 text-center rounded px-4 py-2 font-semibold">Plan your visit</a></div>
            </section>
            <section id="season" class="max-w-6xl mx-auto px-6 py-10">
              <h2 class="text-3xl font-serif font-bold text-green-900 mb-6">In season now</h2>
              <div class="flex flex-wrap gap-3">
                <span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Squash &amp; pumpkins</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Kale</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Leeks</span>
                <span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Beetroot</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Bramley apples</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Free-range eggs</span>
                <span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Parsnips</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Lamb from the farm</span><span class="bg-white border border-green-200 rounded-full px-4 py-2 text-sm">Cobnuts</span>
              </div>
            </section>
            <section id="boxes" class="bg-green-900 text-yellow-50 py-16 mt-10">
              <div class="max-w-6xl mx-auto px-6">
                <h2 class="text-3xl font-serif font-bold mb-2">The Meadowbrook veg box</h2>
                <p class="text-green-200 mb-10">Picked on Thursday, on your doorstep on Friday. Pause or cancel any week.</p>
                <div class="grid md:grid-cols-3 gap-6">
                  <div class="bg-green-800 rounded-lg p-6"><h3 class="font-serif text-xl font-bold">Small</h3><p class="text-sm text-green-200 mb-4">1&ndash;2 people &middot; 7 varieties</p><p class="text-3xl font-bold text-yellow-400">&pound;16<span class="text-sm text-green-200">/week</span></p></div>
                  <div class="bg-green-800 rounded-lg p-6"><h3 class="font-serif text-xl font-bold">Medium</h3><p class="text-sm text-green-200 mb-4">3&ndash;4 people &middot; 9 varieties</p><p class="text-3xl font-bold text-yellow-400">&pound;22<span class="text-sm text-green-200">/week</span></p></div>
                  <div class="bg-green-800 rounded-lg p-6"><h3 class="font-serif text-xl font-bold">Large</h3><p class="text-sm text-green-200 mb-4">5+ people &middot; 11 varieties</p><p class="text-3xl font-bold text-yellow-400">&pound;28<span class="text-sm text-green-200">/week</span></p></div>
                </div>
              </div>
            </section>
            <section id="story" class="max-w-6xl mx-auto px-6 py-16 grid md:grid-cols-2 gap-12 items-center">
              <div><h2 class="text-3xl font-serif font-bold text-green-900 mb-4">Four generations of Hendersons</h2><p class="leading-relaxed mb-4">Great-grandad Walter bought Meadowbrook with a borrowed tractor in 1952. Today Tom and Lucy farm the same 180 acres, with sheep, hens, an orchard and twelve acres of vegetables.</p><p class="leading-relaxed">We farm without pesticides, rotate our fields and leave wide hedgerows for the skylarks.</p></div>
              <img src="https://picsum.photos/id/48/560/400" alt="The Henderson family in the orchard" class="w-full h-80 object-cover rounded-lg">
            </section>
            <footer id="visit" class="bg-yellow-400 text-green-900">
              <div class="max-w-6xl mx-auto px-6 py-10 grid md:grid-cols-3 gap-6 text-sm"><div><p class="font-bold font-serif text-lg">Shop hours</p><p>Tue&ndash;Sat 9am&ndash;5pm &middot; Sun 10am&ndash;2pm</p></div><div><p class="font-bold font-serif text-lg">Find us</p><p>Meadow Lane, Little Hadham, Herts &middot; follow the brown signs</p></div><div><p class="font-bold font-serif text-lg">Say hello</p><p>01279 555 410 &middot; shop@meadowbrook.example</p></div></div>
            </footer>
        """,
    ),
    # f032 -- indie game studio: dark with neon accents, featured game, games row, jobs
    AuthoredPage(
        description=words("""
            We're a five-person indie game studio making story-driven pixel-art games. Our website
            should feel like us: dark, a little retro, with neon energy, aimed at players, press and
            people who might want to join the team. I want a big showcase of our upcoming game with a
            wishlist call to action, a row of our earlier games, a short blurb about the team, open
            job roles, and a press kit and newsletter at the end."""),
        title="Pixel Lantern Games",
        body_class="bg-gray-900 text-gray-300 font-mono",
        body="""
            <header class="max-w-6xl mx-auto flex justify-between items-center px-6 py-6">
              <span class="text-pink-400 font-bold text-lg">&#9632; PIXEL LANTERN</span>
              <nav class="space-x-6 text-sm"><a href="#games" class="hover:text-pink-400">Games</a><a href="#studio" class="hover:text-pink-400">Studio</a><a href="#jobs" class="hover:text-pink-400">Jobs</a><a href="#press" class="hover:text-pink-400">Press</a></nav>
            </header>
            <section class="max-w-6xl mx-auto px-6 py-10">
              <div class="relative rounded-xl overflow-hidden border-2 border-pink-500">
                <img src="https://picsum.photos/id/48/1200/560" alt="Lanternfall key art" class="w-full h-96 object-cover">
                <div class="absolute inset-0 bg-gradient-to-t from-gray-900 via-transparent to-transparent"></div>
                <div class="absolute bottom-0 left-0 p-10">
                  <p class="text-pink-400 text-sm mb-2">&gt; coming spring 2025 &middot; PC / Switch</p>
                  <h1 class="text-5xl font-bold text-white mb-4">LANTERNFALL</h1>
                  <p class="max-w-lg text-gray-300 mb-6">A lighthouse keeper's daughter searches a drowned city for the last light in the world.</p>
                  <a href="#" class="bg-pink-500 hover:bg-pink-400 text-gray-900 font-bold px-6 py-3 rounded">Wishlist on Steam</a>
                </div>
              </div>
            </section>
            <section id="games" class="max-w-6xl mx-auto px-6 py-12">
              <h2 class="text-indigo-400 text-xl mb-6">// previous games</h2>
              <div class="grid md:grid-cols-3 gap-6">
                <div class="bg-gray-800 rounded-lg overflow-hidden hover:bg-gray-700"><img src="https://picsum.photos/id/48/400/220" alt="Moth &amp; Candle" class="w-full h-40 object-cover"><div class="p-4"><h3 class="text-white font-bold">Moth &amp; Candle</h3><p class="text-xs text-gray-500">2022 &middot; Very Positive on Steam</p></div></div>
                <div class="bg-gray-800 rounded-lg overflow-hidden hover:bg-gray-700"><img src="https://picsum.photos/id/48/400/220" alt="Night Bus" class="w-full h-40 object-cover"><div class="p-4"><h3 class="text-white font-bold">Night Bus</h3><p class="text-xs text-gray-500">2020 &middot; IGF Narrative honourable mention</p></div></div>
                <div class="bg-gray-800 rounded-lg overflow-hidden hover:bg-gray-700"><img src="https://picsum.photos/id/48/400/220" alt="Tiny Kingdom" class="w-full h-40 object-cover"><div class="p-4"><h3 class="text-white font-bold">Tiny Kingdom</h3><p class="text-xs text-gray-500">2018 &middot; our first game jam hit</p></div></div>
              </div>
            </section>
            <section id="studio" class="max-w-6xl mx-auto px-6 py-12 grid md:grid-cols-2 gap-10">
              <div><h2 class="text-indigo-400 text-xl mb-4">// the studio</h2><p class="leading-relaxed">Five friends, two cats and one very old arcade cabinet in a Leeds attic. We make small games about big feelings, and we've never crunched. Not once.</p></div>
              <div id="jobs"><h2 class="text-indigo-400 text-xl mb-4">// we're hiring</h2>
                <ul class="space-y-3">
                  <li class="flex justify-between border border-gray-700 rounded px-4 py-3"><span class="text-white">Pixel Artist / Animator</span><span class="text-green-400 text-sm">remote ok</span></li>
                  <li class="flex justify-between border border-gray-700 rounded px-4 py-3"><span class="text-white">Gameplay Programmer (Godot)</span><span class="text-green-400 text-sm">remote ok</span></li>
                  <li class="flex justify-between border border-gray-700 rounded px-4 py-3"><span class="text-white">Community Manager</span><span class="text-yellow-400 text-sm">part-time</span></li>
                </ul>
              </div>
            </section>
            <section id="press" class="border-t border-gray-800 mt-10">
              <div class="max-w-6xl mx-auto px-6 py-12 md:flex justify-between items-center">
                <div class="mb-6 md:mb-0"><h2 class="text-white text-xl font-bold">Press &amp; creators</h2><p class="text-sm">Logos, screenshots, trailers and fact sheets in one zip.</p><a href="#" class="text-pink-400 text-sm underline">Download press kit</a></div>
                <form class="flex"><input type="email" placeholder="devlog updates" class="bg-gray-800 border border-gray-700 rounded-l px-4 py-3 text-white"><button class="bg-indigo-500 text-white font-bold rounded-r px-5">Join</button></form>
              </div>
            </section>
            <footer class="text-center text-xs text-gray-600 py-6">&copy; 2024 Pixel Lantern Games Ltd. &middot; Made in Leeds</footer>
        """,
    ),
)


def task_id(index: int) -> str:
    """The id of the ``index``-th task (1-based): ``f001``, ``f002``, ..."""
    if index < 1:
        raise ValueError(f"task index is 1-based, got {index}")
    return f"f{index:03d}"


def split_of(index: int) -> str:
    """The split of the ``index``-th task (1-based): every fourth task is ``"test"``."""
    if index < 1:
        raise ValueError(f"task index is 1-based, got {index}")
    return _split_every(index, every=4)


def records() -> list[dict]:
    """The records of :data:`PAGES`, in order, with ids and splits."""
    return [
        {"task_id": task_id(i), "split": split_of(i), "problem_description": page.description,
         "ground_truth": page.html}
        for i, page in enumerate(PAGES, 1)
    ]


def render_jsonl() -> str:
    """The jsonl text of :func:`records`: one JSON object per line, keys in a fixed order."""
    return jsonl_text(records())


def write_jsonl(path: str | os.PathLike | None = None) -> Path:
    """Write :func:`render_jsonl` to ``path`` (default :data:`DEFAULT_PATH`) and return the path."""
    return write_text(DEFAULT_PATH if path is None else path, render_jsonl())


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m colbench_env.data.authoring.frontend [PATH]``."""
    return write_cli(argv, prog=__name__, write=write_jsonl, count=len(PAGES), what="frontend tasks")


if __name__ == "__main__":
    raise SystemExit(main())
