"""``colbench render PAGE.html --out shot.png``: render an HTML page to a PNG in headless Chromium.

The page is rendered offline as in evaluation (see :mod:`colbench_env.evaluation.render`): the CDN
Tailwind 2 stylesheet comes from the local copy (``make assets``), picsum.photos images are placeholders,
every other request is refused. ``--extract`` first takes the page out of an agent answer the way the
reference does (``<html>…</html>`` else ``<body>…</body>``, picsum URLs normalised to id 48).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from colbench_env.protocol import extract_html


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", type=Path, help="HTML file to render ('-' reads standard input)")
    parser.add_argument("--out", type=Path, required=True, help="PNG file to write")
    parser.add_argument("--width", type=int, default=1280, help="viewport width in CSS pixels")
    parser.add_argument("--height", type=int, default=800, help="viewport height in CSS pixels")
    parser.add_argument("--max-height", type=int, default=4000,
                        help="tallest screenshot in pixels; longer pages are cut")
    parser.add_argument("--timeout", type=float, default=15.0, help="page-load timeout in seconds")
    parser.add_argument("--extract", action="store_true",
                        help="treat the file as an agent answer: extract <html>/<body> and normalise picsum URLs")


def main(args: argparse.Namespace) -> int:
    from colbench_env.evaluation.offline_assets import AssetsMissingError
    from colbench_env.evaluation.render import BrowserNotFoundError, RenderError, Renderer

    if str(args.page) == "-":
        html = sys.stdin.read()
    else:
        if not args.page.is_file():
            print(f"colbench render: error: no such file: {args.page}", file=sys.stderr)
            return 2
        try:
            html = args.page.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            print(f"colbench render: error: {args.page}: not UTF-8 text ({e})", file=sys.stderr)
            return 2
    if args.extract:
        html = extract_html(html)
        if not html:
            print(f"colbench render: error: {args.page}: no <html>…</html> or <body>…</body> found", file=sys.stderr)
            return 2
    if args.out.suffix.lower() != ".png":
        print(f"colbench render: error: --out must be a .png file, got {args.out}", file=sys.stderr)
        return 2
    try:
        with Renderer(pool_size=1, viewport=(args.width, args.height), page_load_timeout_s=args.timeout,
                      max_height=args.max_height) as renderer:
            img = renderer.render(html)
    except (ValueError, BrowserNotFoundError, AssetsMissingError, RenderError) as e:
        print(f"colbench render: error: {e}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    img.save(args.out)
    print(f"{args.out}: {img.width}x{img.height}")
    return 0
