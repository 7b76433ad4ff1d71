"""``colbench setup``: fetch what the frontend env needs and say what else is missing.

Fetches Tailwind CSS 2.2.19's stylesheet from the npm registry into the user cache
(``$COLBENCH_CACHE/assets`` or ``~/.cache/colbench/assets``; the frontend env also does this on first
use), then reports the headless browser (Chromium + chromedriver, from the OS) and the Python extras
(:data:`colbench.extras.EXTRA_MODULES`: ``lm``, ``frontend``, ``train``, ``view``, ``bench``), each
with what it is for.
Exit status 0 when the stylesheet is in place, 2 when it could not be fetched (the message says why
and what to install).
"""
from __future__ import annotations

import argparse
import shutil

from colbench.errors import UsageError

__all__ = ["add_arguments", "main", "setup"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--assets-dir", default=None,
                   help="where to put the stylesheet (default: $COLBENCH_CACHE/assets or ~/.cache/colbench/assets)")


def setup(assets_dir: str | None = None) -> dict:
    """Fetch the stylesheet; returns ``{"tailwind": path, "browser": ..., "extras": {...}}``."""
    from colbench.extras import EXTRA_MODULES, missing
    from colbench_env.evaluation.tailwind_fetch import TailwindFetchError, fetch_tailwind

    try:
        css = fetch_tailwind(assets_dir)
    except TailwindFetchError as e:
        raise UsageError(str(e)) from None
    browser = [b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)]
    extras = {name: not missing(name) for name in EXTRA_MODULES}
    return {"tailwind": str(css), "browser": browser[0] if browser else None,
            "chromedriver": shutil.which("chromedriver"), "extras": extras}


def main(args: argparse.Namespace) -> int:
    from colbench.extras import EXTRA_USES

    r = setup(args.assets_dir)
    print(f"tailwind stylesheet: {r['tailwind']}")
    print(f"browser: {r['browser'] or 'MISSING (Debian/Ubuntu: sudo apt-get install chromium)'}; "
          f"chromedriver: {r['chromedriver'] or 'MISSING (Debian/Ubuntu: sudo apt-get install chromium-driver)'}")
    for name, ok in r["extras"].items():
        print(f"extra {name}: {'installed' if ok else f'not installed (pip install colbench[{name}])'}"
              f" -- {EXTRA_USES[name]}")
    return 0
