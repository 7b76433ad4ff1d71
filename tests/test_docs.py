"""The docs: the site builds with ``mkdocs build --strict``, and in headless Chromium every internal
link of every page leads to a page that exists and to an anchor on it; the CLI reference is what the
parsers say; the API reference covers every public module; the README's use example runs as copied."""
from __future__ import annotations

import html
import importlib
import os
import re
import subprocess
import sys
from collections import deque
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("colbench_env", "wrappers", "agents", "colbench")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built by ``mkdocs build --strict`` into a fresh folder (the build fails on any warning:
    a broken link or anchor between pages, a docstring mkdocstrings cannot read, a page not found)."""
    out = tmp_path_factory.mktemp("site")
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-5000:]
    assert "WARNING" not in p.stderr, p.stderr[-5000:]
    return out


# ------------------------------------------------------------------------------------------- links
class _SiteServer:
    """The built site behind a real HTTP server on 127.0.0.1, which is also the browser's proxy for
    every request: it serves its own URLs and answers 502 to any other (the browser's own traffic
    included)."""

    def __init__(self, site: Path):
        import functools
        import http.server
        import threading

        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _own(self) -> bool:
                if self.path.startswith(("http://", "https://")):  # a proxied request: the whole URL
                    if not self.path.startswith(outer.url):
                        self.send_error(502, "not this site")
                        return False
                    self.path = "/" + self.path[len(outer.url):]
                return True

            def do_GET(self):
                if self._own():
                    super().do_GET()

            def do_HEAD(self):
                if self._own():
                    super().do_HEAD()

            def do_CONNECT(self):
                self.send_error(502, "not this site")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def served(site):
    server = _SiteServer(site)
    try:
        yield server
    finally:
        server.close()


def _status(url: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.browser
def test_every_internal_link_leads_to_a_page_and_anchor(site, served):
    """From the home page, follow every link to a page of the site (breadth first) in headless
    Chromium with the network off: each target answers 200 and holds the anchor the link names,
    every page of the site is reached, and no page logs a console error or asks the network for
    anything (no web fonts, no CDN). Links that leave the site are only collected."""
    from colbench.viewer.browser import console_errors, network_requests, offline_browser

    root = served.url
    ids: dict[str, set[str]] = {}  # page -> the ids on it, once loaded
    seen, queue, links, broken, external, errors = set(), deque([root]), [], [], set(), []
    with offline_browser(proxy_port=served.port) as driver:
        while queue:
            page = queue.popleft()
            if page in seen:
                continue
            seen.add(page)
            if _status(page) != 200:
                continue  # reported below with the link to it
            if not page.endswith("/") and not page.endswith(".html"):
                continue  # an image or a stylesheet: that it is there is enough
            driver.get(page)
            found = driver.execute_script(
                "return [Array.from(document.querySelectorAll('a[href]')).map(a => a.href),"
                "        Array.from(document.querySelectorAll('[id]')).map(e => e.id)];")
            ids[page] = set(found[1])
            errors += [(page, e["message"]) for e in console_errors(driver)]
            errors += [(page, f"asked the network for {u}") for u in network_requests(driver) if not u.startswith(root)]
            for href in found[0]:
                target, _ = urldefrag(href)
                links.append((page, href))
                if target.startswith(root):
                    queue.append(target)
                else:
                    external.add(href)
    for source, href in links:
        target, fragment = urldefrag(href)
        if not target.startswith(root):
            continue
        if target not in ids and _status(target) != 200:
            broken.append(f"{source} -> {href}: HTTP {_status(target)}")
        elif fragment and target in ids and unquote(fragment) not in ids[target]:
            broken.append(f"{source} -> {href}: no anchor #{fragment}")
    assert not broken, sorted(set(broken))
    assert not errors, errors[:20]  # and no page asked for anything beyond the site: no web fonts, no CDN
    pages = {root + ("" if p.parent == site else f"{p.parent.relative_to(site).as_posix()}/") for p in site.rglob("index.html")}
    assert len(ids) >= 30 and pages <= set(ids), sorted(pages - set(ids))  # every page is reached
    assert not [u for u in external if u.startswith("file:")], sorted(external)


# ------------------------------------------------------------------------------------- generated parts
def test_the_cli_reference_is_what_the_parsers_say(site):
    """Every command (and ``colbench train``'s algorithms, ``colbench audit``'s subcommands) has its
    section, its usage as argparse prints it, and a row for each option; nothing in the page is copied
    help text."""
    import argparse

    from colbench.cli import COMMANDS, command_parser

    page = (site / "guides" / "cli" / "index.html").read_text(encoding="utf-8")
    parsers = [command_parser(name) for name in COMMANDS]
    for parser in list(parsers):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
    assert len(parsers) == len(COMMANDS) + 5 + 2  # the five trainers under colbench train, audit tasks / dialogues
    for parser in parsers:
        slug = re.sub(r"[^a-z0-9-]+", "-", parser.prog)
        assert f'id="{slug}"' in page, parser.prog
        assert html.escape(parser.format_usage().removeprefix("usage: ").strip(), quote=False) in page, parser.prog
        for action in parser._actions:
            if action.option_strings and action.help != argparse.SUPPRESS and "-h" not in action.option_strings:
                assert f'id="{slug}--{action.option_strings[-1].lstrip("-")}"' in page, (parser.prog, action.option_strings)
    assert "config fields (RFTConfig" in page  # colbench train rft's epilog: the config's fields


def test_the_home_page_is_the_readme(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<h1" in page and "colbench" in page
    for target in re.findall(r"\]\(docs/([^)#]+)\.md", readme):
        expected = target.removesuffix("index") if target.endswith("/index") else target + "/"
        assert f'href="{expected}"' in page, target  # the README's links into docs/, from docs/


def _public_modules() -> list[str]:
    """Every public module of the library folders, by its import name (pyproject.toml's package-dir
    maps a folder to a sub-package: ``agents/`` is ``colbench.agents`` where it says so)."""
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        package_dir = tomllib.load(f).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    name_of = {folder: name for name, folder in package_dir.items() if name}
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            if "authoring" in parts or parts[:2] == ("colbench", "cli") or any(p.startswith("_") for p in parts):
                continue
            out.append(".".join((name_of.get(parts[0], parts[0]), *parts[1:])))
    return out


def test_every_public_module_is_in_the_api_reference():
    documented = {m for page in (ROOT / "docs" / "api").glob("*.md")
                  for m in re.findall(r"^::: ([\w.]+)", page.read_text(), re.M)}
    missing = sorted(set(_public_modules()) - documented)
    assert not missing, f"add them to a page of docs/api/: {missing}"
    assert len(documented) >= 90
    for name in documented:  # and every documented name is a module that exists
        assert importlib.util.find_spec(name) is not None, name


# ------------------------------------------------------------------------------------------- README
def test_the_readme_is_short_and_its_use_example_runs_as_copied(tmp_path):
    """README.md <= 200 lines; its use block (<= 20 lines) runs as a script of its own, outside the
    checkout: it plays one episode and prints the reward and the scorer's reason."""
    from conftest import docs_blocks

    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200
    where, code = docs_blocks()["use"]
    assert where == "README.md"
    assert len(code.splitlines()) <= 20
    (tmp_path / "use.py").write_text(code)
    p = subprocess.run([sys.executable, "use.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=""))
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.strip().splitlines()
    assert lines[0].rstrip().endswith(")") and "The signature of the function is: def " in lines[0]
    assert "I WANT TO ANSWER:" in p.stdout
    reward, reason = lines[-1].split(" ", 1)
    assert float(reward) == 0.0 and reason.startswith("10/10 tests failed"), lines[-1]
