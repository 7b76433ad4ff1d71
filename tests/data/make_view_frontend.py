"""How ``view_frontend_a.jsonl`` and ``view_frontend_b.jsonl`` were made: two real ``colbench run``s of
the scripted agent on ColBench-Frontend-v0 (the 8 embedded test tasks, the scripted frontend human,
rendered and scored in headless Chromium), for the viewer's tests and the README's screenshots.

A asks a question, shows a blue draft page, then answers with a warm yellow page (3 turns); B asks
once and answers with a dark page (2 turns)::

    python tests/data/make_view_frontend.py A tests/data/view_frontend_a.jsonl
    python tests/data/make_view_frontend.py B tests/data/view_frontend_b.jsonl
"""
import json
import subprocess
import sys

CDN = '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">'


def page(bg, head, title, cards, body_bg="bg-white"):
    cs = "".join(f'<div class="bg-white rounded-lg shadow p-6"><h3 class="text-xl font-bold mb-2">{c}</h3>'
                 f'<p class="text-gray-600">A few words about {c.lower()}.</p></div>' for c in cards)
    return (f'<html><head>{CDN}</head><body class="{body_bg} font-sans">'
            f'<header class="{head} text-white px-8 py-6"><h1 class="text-3xl font-bold">{title}</h1></header>'
            f'<section class="px-8 py-12 {bg}"><h2 class="text-4xl font-extrabold mb-4">Welcome</h2>'
            f'<p class="text-lg text-gray-700">We are glad you are here. Find out what we do and how to reach us.</p>'
            f'<img class="mt-6 rounded" src="https://picsum.photos/600/300"></section>'
            f'<section class="px-8 py-10 grid grid-cols-3 gap-6">{cs}</section>'
            f'<footer class="bg-gray-800 text-gray-300 text-center py-6">Opening hours and address</footer></body></html>')


A = ["Let me ask first. OUTPUT: What colours and sections would you like on the page?",
     "A first draft. OUTPUT: How about this draft? " + page("bg-gray-50", "bg-blue-600", "Our Business",
                                                             ["Services", "Prices", "Contact"]),
     "OUTPUT: I WANT TO ANSWER: " + page("bg-yellow-50", "bg-yellow-800", "Our Business",
                                         ["Our story", "Best sellers", "Visit us"], "bg-yellow-50")]
B = ["OUTPUT: Which sections do you need?",
     "OUTPUT: I WANT TO ANSWER: " + page("bg-white", "bg-gray-900", "Welcome", ["About", "Team"])]

if __name__ == "__main__":
    which, out = sys.argv[1], sys.argv[2]
    cmd = [sys.executable, "-m", "colbench", "run", "--env", "ColBench-Frontend-v0", "--agent", "scripted",
           "--agent-kwargs", json.dumps({"messages": A if which == "A" else B}), "--split", "test",
           "--max-turns", "3", "--out", out]
    sys.exit(subprocess.run(cmd).returncode)
