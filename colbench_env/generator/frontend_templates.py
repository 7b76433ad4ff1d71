"""The businesses and the page skeleton of the frontend task generator
(see :mod:`colbench_env.generator.frontend`).

A page (:func:`page_html`) is, top to bottom: a navigation bar (the business name and three links), a welcome section
(headline, one line, a button; centred, or split with a photo beside the text), two middle sections
(the cards -- products with prices, services, or a pricing table of plans -- and an information
band -- opening hours, our story, a customer's words, or where to find us) and a footer.
:func:`page_html` writes it with Tailwind 2.2.19 classes from a :class:`Business`, a name, a hero
style and the six fact values (theme, accent, background, headline, cards, order). A *mini* page
(:func:`mini_page_html`, the ``"mini"`` family) keeps only the navigation bar (the name), the welcome
section (the headline) and the footer: 7 lines, about 150 SmolLM2 tokens instead of ~700, so a very
small policy can write a whole page in one turn.

Colour words and shades: the accent (navigation bar, buttons, footer) is a ``-500`` shade and the welcome
section's own background a ``-700`` shade, so the words a person uses ("green", "dark green") are
exactly the names :func:`colbench_env.simulators.scripted_frontend.colour_name` gives those pixels.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

__all__ = ["Business", "BUSINESSES", "HERO_STYLES", "ACCENTS", "BACKGROUNDS", "COUNT_WORDS", "TAILWIND_CDN",
           "page_html", "mini_page_html"]

#: The stylesheet every generated page links (the one ColBench ground truths use).
TAILWIND_CDN = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
#: Accent colours (navigation bar and buttons, shade 500); the default is "blue".
ACCENTS = ("blue", "green", "red", "purple", "pink", "indigo", "yellow")
#: Colours of a welcome section with a background of its own (shade 700, said "dark green" ...).
BACKGROUNDS = ("green", "blue", "purple", "red", "pink", "indigo")
#: The welcome section's two looks (not a hidden fact: the request says which).
HERO_STYLES = ("centered", "split")
COUNT_WORDS = {2: "two", 3: "three", 4: "four"}


@dataclass(frozen=True)
class Business:
    """The texts of one kind of business.

    Attributes:
        key: identifier (``extra["generator"]["template"]``).
        noun: what the person owns ("bakery"): "a landing page for my bakery".
        names: business names the seed chooses from.
        blurb: the welcome section's one line.
        button: the welcome button's label.
        links: the three navigation links.
        photo: the alt text of the welcome photo (split hero).
        items_kind: ``"products"`` (name, line, price), ``"services"`` (name, line) or ``"plans"``
            (a pricing table: name, price, line, a button).
        items_title: the cards section's heading.
        items_noun: what the cards show, as the person says it ("our bakes").
        items: at least four ``(name, line, price)`` (price ``""`` for services).
        info_kind: ``"hours"``, ``"story"``, ``"quote"`` or ``"contact"``.
        info_title: the information band's heading.
        info_noun: what the band shows, as the person says it ("our opening hours").
        info_lines: the band's lines (a quote: the words, then who said them).
        headlines: the person's own headlines (the default is "Welcome to NAME").
    """

    key: str
    noun: str
    names: tuple
    blurb: str
    button: str
    links: tuple
    photo: str
    items_kind: str
    items_title: str
    items_noun: str
    items: tuple
    info_kind: str
    info_title: str
    info_noun: str
    info_lines: tuple
    headlines: tuple

    def __post_init__(self):
        if self.items_kind not in ("products", "services", "plans") or len(self.items) < max(COUNT_WORDS):
            raise ValueError(f"business {self.key!r}: bad items")
        if self.info_kind not in ("hours", "story", "quote", "contact") or len(self.links) != 3:
            raise ValueError(f"business {self.key!r}: bad info band or links")


BUSINESSES: tuple[Business, ...] = (
    Business("bakery", "bakery", ("Golden Crust", "Rise and Shine", "The Flour Mill"),
             "Bread, pastries and cakes baked fresh in the heart of town.", "See our bakes",
             ("Bakes", "Hours", "Contact"), "Fresh loaves on a counter",
             "products", "Our bakes", "our bakes",
             (("Sourdough loaf", "Slow-rised for two days.", "$6"), ("Croissant", "Buttery and flaky.", "$3"),
              ("Cinnamon roll", "Sticky and sweet.", "$4"), ("Rye bread", "Dark and hearty.", "$5")),
             "hours", "Opening hours", "our opening hours",
             ("Monday to Friday: 7am to 6pm", "Saturday: 8am to 2pm"),
             ("Fresh bread every morning", "Baked by hand since 1987", "Real bread, made slowly")),
    Business("coffee", "coffee shop", ("Bean There", "Morning Cup", "The Daily Grind"),
             "Small-batch coffee roasted on site, with cakes to match.", "View the menu",
             ("Menu", "About", "Visit"), "A cup of coffee on a table",
             "products", "On the menu", "our drinks",
             (("Espresso", "Short, strong and smooth.", "$2"), ("Flat white", "Velvety milk, double shot.", "$3"),
              ("Iced latte", "Cold milk over espresso.", "$4"), ("Hot chocolate", "Rich and creamy.", "$3")),
             "hours", "Opening hours", "our opening hours",
             ("Every day: 7am to 5pm", "Sunday: 9am to 3pm"),
             ("Coffee worth waking up for", "Roasted here, poured with care", "Your daily cup, done right")),
    Business("yoga", "yoga studio", ("Still Water Yoga", "Lotus House", "Breathe Studio"),
             "Calm classes for every level, in a bright room by the river.", "Book a class",
             ("Classes", "Prices", "Contact"), "A quiet studio with mats",
             "plans", "Memberships", "our membership plans",
             (("Drop in", "One class, any time.", "$15"), ("Ten classes", "Use them within three months.", "$120"),
              ("Monthly", "Unlimited classes.", "$90"), ("Student", "Unlimited, with a student card.", "$60")),
             "story", "Our story", "our story",
             ("We opened in 2015 to share a slower, kinder kind of yoga with our neighbours.",),
             ("Find your calm", "Breathe in, slow down", "Yoga for every body")),
    Business("bikes", "bike repair shop", ("Spoke and Chain", "Pedal Works", "Fix My Ride"),
             "Fast, honest repairs for city bikes, racers and cargo bikes.", "Book a repair",
             ("Repairs", "Prices", "Find us"), "A bike in a repair stand",
             "plans", "Service packages", "our service packages",
             (("Quick check", "Brakes, gears and tyres.", "$25"),
              ("Full service", "Every part checked and tuned.", "$70"),
              ("Wheel true", "Straight wheels again.", "$20"), ("Puncture fix", "Back on the road today.", "$10")),
             "contact", "Find us", "where to find us",
             ("12 Station Road, under the railway arch", "Call us on 555 0182"),
             ("Back on the road today", "Repairs while you wait", "We keep the city riding")),
    Business("books", "bookshop", ("Paper Lantern Books", "The Reading Nook", "Chapter One"),
             "New and second-hand books, a café corner and a very friendly cat.", "Browse the shelves",
             ("Books", "Events", "Visit"), "Shelves full of books",
             "products", "Staff picks", "our staff picks",
             (("The Quiet Garden", "A gentle novel about starting again.", "$14"),
              ("Northern Lights", "Adventure for readers of all ages.", "$9"),
              ("Bread and Salt", "Recipes and stories from home.", "$22"),
              ("The Long Walk", "A memoir of a thousand miles.", "$16")),
             "quote", "What readers say", "what our readers say",
             ("The cosiest shop in town, and the cat knows the best books.", "Maria, a regular"),
             ("A good book is waiting for you", "Stories for every shelf", "Come in and stay a while")),
    Business("florist", "flower shop", ("Petal and Stem", "Wild Bloom", "The Flower Cart"),
             "Seasonal bouquets, wedding flowers and same-day delivery.", "Order flowers",
             ("Bouquets", "Weddings", "Contact"), "A bouquet of fresh flowers",
             "products", "Bouquets", "our bouquets",
             (("Spring posy", "Tulips and daffodils.", "$30"), ("Classic roses", "A dozen red roses.", "$45"),
              ("Wild meadow", "Loose and seasonal.", "$35"), ("Sunflowers", "Bright and cheerful.", "$28")),
             "hours", "Opening hours", "our opening hours",
             ("Monday to Saturday: 9am to 6pm", "Sunday: closed"),
             ("Flowers for every moment", "Picked this morning for you", "Say it with flowers")),
    Business("dentist", "dental practice", ("Bright Smile Dental", "Gentle Care Dentistry", "Park Lane Dental"),
             "Friendly dentists for the whole family, nervous patients welcome.", "Book a visit",
             ("Treatments", "Team", "Contact"), "A bright treatment room",
             "services", "Treatments", "our treatments",
             (("Check-ups", "A careful look, twice a year."), ("Cleaning", "Fresh and polished teeth."),
              ("Whitening", "A brighter smile, safely."), ("Emergencies", "Same-day help when it hurts.")),
             "contact", "Find us", "where to find us",
             ("4 Park Lane, first floor", "Call us on 555 0147"),
             ("Gentle care for every smile", "No more fear of the dentist", "Healthy teeth for life")),
    Business("barber", "barber shop", ("Sharp Lines", "The Gentle Blade", "Old Town Barbers"),
             "Classic cuts, hot towel shaves and beard trims, no appointment needed.", "See our prices",
             ("Prices", "Barbers", "Visit"), "A barber chair by a mirror",
             "products", "Our cuts", "our cuts",
             (("Classic cut", "Scissors and clippers.", "$20"), ("Skin fade", "Sharp and clean.", "$25"),
              ("Beard trim", "Shaped and tidied.", "$12"), ("Hot towel shave", "The full treatment.", "$30")),
             "hours", "Opening hours", "our opening hours",
             ("Tuesday to Saturday: 9am to 7pm", "Sunday and Monday: closed"),
             ("Look sharp, feel sharp", "Walk in, walk out looking good", "The best cut in town")),
    Business("climbing", "climbing gym", ("Summit Walls", "The Boulder Barn", "High Point Climbing"),
             "Bouldering and rope climbing for beginners and experts alike.", "Plan your visit",
             ("Prices", "Classes", "Visit"), "Colourful holds on a climbing wall",
             "plans", "Memberships", "our membership plans",
             (("Day pass", "Climb all day.", "$18"), ("Monthly", "Unlimited climbing.", "$65"),
              ("Yearly", "Twelve months for the price of ten.", "$650"),
              ("Youth", "Unlimited, for under eighteens.", "$40")),
             "quote", "What climbers say", "what our climbers say",
             ("Friendly staff, great routes and the best community in the city.", "Sam, a member"),
             ("Reach new heights", "Climb higher every week", "Your wall, your way")),
    Business("photo", "photography studio", ("Silver Frame Studio", "Golden Hour Photos", "Light Box"),
             "Portraits, weddings and family photos with a natural touch.", "See my work",
             ("Work", "Prices", "Contact"), "A camera on a wooden desk",
             "plans", "Photo packages", "my photo packages",
             (("Mini session", "Thirty minutes, ten photos.", "$150"), ("Portrait", "One hour, thirty photos.", "$300"),
              ("Family", "Two hours at home.", "$450"), ("Wedding", "The whole day.", "$1800")),
             "story", "About me", "my story",
             ("I have been taking photos of people for ten years, and I still love every shoot.",),
             ("Moments worth keeping", "Natural photos of real people", "Your story in pictures")),
    Business("language", "language school", ("Open Door Languages", "Word by Word", "Babel School"),
             "Evening and weekend courses with small groups and native teachers.", "Find a course",
             ("Courses", "Teachers", "Contact"), "Students in a bright classroom",
             "services", "Our courses", "our courses",
             (("Spanish", "From first words to fluent."), ("French", "Speak with confidence."),
              ("German", "Grammar made friendly."), ("Japanese", "Start with the basics.")),
             "quote", "What students say", "what our students say",
             ("After one term I could order dinner in Madrid, and I loved every class.", "Priya, a student"),
             ("Speak a new language this year", "Learn to talk, not just study", "Small classes, big progress")),
    Business("foodtruck", "food truck", ("Taco Wheels", "Street Spice", "Rolling Kitchen"),
             "Fresh street food, made to order wherever we park this week.", "See the menu",
             ("Menu", "Where we are", "Contact"), "A food truck at a market",
             "products", "The menu", "our dishes",
             (("Chicken tacos", "Lime, chilli and coriander.", "$9"),
              ("Veggie burrito", "Beans, rice and salsa.", "$8"),
              ("Loaded fries", "Cheese, jalapenos and sauce.", "$6"),
              ("Churros", "Cinnamon sugar and chocolate.", "$5")),
             "contact", "Find us this week", "where to find us",
             ("Monday to Friday at the Market Square car park", "Follow us for the weekend spot"),
             ("Street food made fresh", "Tacos on the move", "Follow the truck, find the flavour")),
    Business("garden", "garden centre", ("Green Thumb Garden", "The Potting Shed", "Leaf and Root"),
             "Plants, seeds and friendly advice for gardens of every size.", "Shop plants",
             ("Plants", "Advice", "Visit"), "Plants in pots on a table",
             "products", "Plants of the month", "our plants of the month",
             (("Lavender", "Loved by bees.", "$7"), ("Olive tree", "A touch of the south.", "$40"),
              ("Herb set", "Basil, thyme and mint.", "$12"), ("Fern", "Happy in the shade.", "$9")),
             "hours", "Opening hours", "our opening hours",
             ("Every day: 8am to 6pm", "Winter: 9am to 4pm"),
             ("Grow something beautiful", "Your garden starts here", "Plants, advice and a warm welcome")),
    Business("music", "music school", ("Do Re Mi Music", "The Music Room", "Bright Notes"),
             "Lessons for children and adults in piano, guitar, violin and voice.", "Book a lesson",
             ("Lessons", "Teachers", "Contact"), "A piano in a sunny room",
             "services", "Lessons", "our lessons",
             (("Piano", "From scales to sonatas."), ("Guitar", "Chords, songs and solos."),
              ("Violin", "A gentle, patient start."), ("Singing", "Find your voice.")),
             "story", "Our story", "our story",
             ("Three teachers started the school in 2010, and hundreds of pupils have played here since.",),
             ("Music for everyone", "Play the music you love", "Start playing today")),
    Business("pets", "pet grooming salon", ("Happy Paws", "Fluff and Fold", "The Pampered Pet"),
             "Gentle grooming for dogs and cats of every size.", "Book a groom",
             ("Services", "Prices", "Contact"), "A happy dog after a bath",
             "plans", "Grooming packages", "our grooming packages",
             (("Bath and brush", "Clean and fluffy.", "$30"), ("Full groom", "Bath, cut and nails.", "$55"),
              ("Puppy intro", "A calm first visit.", "$25"), ("Cat groom", "Brush, bath and nails.", "$45")),
             "quote", "What owners say", "what our customers say",
             ("Our old dog actually wags his tail when we arrive here.", "Tom, a dog owner"),
             ("Happy pets, happy owners", "Gentle grooming with love", "Clean, calm and cuddly")),
    Business("cleaning", "cleaning company", ("Sparkle Home", "Fresh Start Cleaning", "Clean Slate"),
             "Trusted cleaners for homes and small offices, weekly or one-off.", "Get a quote",
             ("Services", "Prices", "Contact"), "A tidy, bright living room",
             "services", "What we clean", "our services",
             (("Homes", "Weekly or every two weeks."), ("Offices", "Before or after hours."),
              ("Deep clean", "Every corner, top to bottom."), ("Moving out", "Leave it spotless.")),
             "contact", "Get in touch", "how to reach us",
             ("Call us on 555 0199", "Or write to hello at our web address"),
             ("A spotless home without the effort", "Come home to clean", "We clean, you relax")),
)


def _classes(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _items(business: Business, count: int, accent: str, dark: bool) -> list[str]:
    card = "bg-gray-800 rounded-lg p-6" if dark else "border rounded-lg p-6"
    lines = []
    for name, text, *price in business.items[:count]:
        price = price[0] if price else ""
        if business.items_kind == "plans":
            lines.append(f'    <div class="{card} text-center"><h3 class="text-xl font-bold">{escape(name)}</h3>'
                         f'<p class="text-3xl font-bold my-4">{escape(price)}</p><p class="mb-6">{escape(text)}</p>'
                         f'<a href="#" class="bg-{accent}-500 text-white px-4 py-2 rounded-lg">Choose</a></div>')
        elif price:
            lines.append(f'    <div class="{card}"><h3 class="text-xl font-bold mb-2">{escape(name)}</h3>'
                         f'<p class="mb-4">{escape(text)}</p><p class="font-bold">{escape(price)}</p></div>')
        else:
            lines.append(f'    <div class="{card}"><h3 class="text-xl font-bold mb-2">{escape(name)}</h3>'
                         f'<p>{escape(text)}</p></div>')
    return lines


def _info(business: Business, dark: bool) -> list[str]:
    band = _classes("bg-gray-800" if dark else "bg-gray-100", "px-8 py-12 text-center")
    lines = [f'<section class="{band}">', f'  <h2 class="text-2xl font-bold mb-4">{escape(business.info_title)}</h2>']
    if business.info_kind == "quote":
        words, who = business.info_lines
        lines += [f'  <p class="text-xl italic mb-2">&ldquo;{escape(words)}&rdquo;</p>', f"  <p>{escape(who)}</p>"]
    else:
        lines += [f"  <p>{escape(line)}</p>" for line in business.info_lines]
    return lines + ["</section>"]


def page_html(business: Business, name: str, hero: str, values: dict) -> str:
    """The page for ``business`` named ``name`` with welcome style ``hero`` (:data:`HERO_STYLES`) and
    the fact ``values``: ``theme`` ("light" / "dark"), ``accent`` (:data:`ACCENTS`), ``background``
    (``None``: the welcome section has no background of its own, else one of :data:`BACKGROUNDS`),
    ``headline`` (text), ``cards`` (2..4), ``order`` ("cards first" / "info first")."""
    dark = values["theme"] == "dark"
    accent, background = values["accent"], values["background"]
    button = (f'<a href="#" class="inline-block bg-{accent}-500 text-white px-6 py-3 rounded-lg">'
              f"{escape(business.button)}</a>")
    colour = f"bg-{background}-700 text-white" if background else ""
    if hero == "split":
        welcome = [f'<section class="{_classes(colour, "px-8 py-16 grid grid-cols-2 gap-8 items-center")}">',
                   f'  <div><h1 class="text-4xl font-bold mb-4">{escape(values["headline"])}</h1>'
                   f'<p class="text-lg mb-6">{escape(business.blurb)}</p>{button}</div>',
                   f'  <img src="https://picsum.photos/id/48/600/400" alt="{escape(business.photo)}"'
                   ' class="rounded-lg w-full">',
                   "</section>"]
    else:
        welcome = [f'<section class="{_classes(colour, "px-8 py-16 text-center")}">',
                   f'  <h1 class="text-4xl font-bold mb-4">{escape(values["headline"])}</h1>',
                   f'  <p class="text-lg mb-6">{escape(business.blurb)}</p>', f"  {button}", "</section>"]
    count = values["cards"]
    cards = ['<section class="px-8 py-12">',
             f'  <h2 class="text-2xl font-bold text-center mb-8">{escape(business.items_title)}</h2>',
             f'  <div class="grid grid-cols-{count} gap-6">', *_items(business, count, accent, dark), "  </div>",
             "</section>"]
    middle = cards + _info(business, dark) if values["order"] == "cards first" else _info(business, dark) + cards
    links = "".join(f'<a href="#">{escape(link)}</a>' for link in business.links)
    lines = ['<html lang="en">', "<head>", f"  <title>{escape(name)}</title>",
             f'  <link href="{TAILWIND_CDN}" rel="stylesheet">', "</head>",
             f'<body class="{"bg-gray-900 text-gray-100" if dark else "bg-white text-gray-800"}">',
             f'<nav class="bg-{accent}-500 text-white px-8 py-4 flex justify-between items-center">',
             f'  <span class="text-xl font-bold">{escape(name)}</span>', f'  <div class="space-x-6">{links}</div>',
             "</nav>", *welcome, *middle,
             f'<footer class="bg-{accent}-500 text-white text-center py-6">&copy; 2024 {escape(name)}</footer>',
             "</body>", "</html>"]
    return "\n".join(lines)


def mini_page_html(name: str, values: dict) -> str:
    """The mini page named ``name``: a navigation bar with the name and a footer in the ``accent``
    colour, between them a welcome section (its own ``background`` or none) with the ``headline``
    (``values`` as for :func:`page_html`; theme, cards and order do not apply). Seven lines::

        <html>
        <head><link href="...tailwind.min.css" rel="stylesheet"></head>
        <body>
        <nav class="bg-blue-500 text-white p-4">Golden Crust</nav>
        <section class="p-16 text-center"><h1 class="text-4xl font-bold">Welcome to Golden Crust</h1></section>
        <footer class="bg-blue-500 text-white p-4">Golden Crust</footer>
        </body></html>
    """
    accent, background = values["accent"], values["background"]
    section = _classes(f"bg-{background}-700 text-white" if background else "", "p-16 text-center")
    return "\n".join([
        "<html>", f'<head><link href="{TAILWIND_CDN}" rel="stylesheet"></head>', "<body>",
        f'<nav class="bg-{accent}-500 text-white p-4">{escape(name)}</nav>',
        f'<section class="{section}"><h1 class="text-4xl font-bold">{escape(values["headline"])}</h1></section>',
        f'<footer class="bg-{accent}-500 text-white p-4">{escape(name)}</footer>', "</body></html>"])
