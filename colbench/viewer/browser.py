"""A headless Chromium with the network off, to open a report from its file:// URL: what the tests,
the benchmark (:mod:`colbench.benchmarks.bench_view`) and the docs' screenshots (docs/make_screenshots.py) use.

Started with the scorer's switches (:func:`colbench_env.evaluation.render.chromium_arguments`), its
proxy pointed at a closed local port and name resolution disabled, and DevTools' offline network
emulation on: any request a report made to the network would fail, and is listed by
:func:`network_requests` (the browser's performance log). :func:`console_errors` returns the
console's errors and warnings (the browser log).
"""
from __future__ import annotations

import contextlib
import json
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Iterator

__all__ = ["offline_browser", "open_report", "goto", "console_errors", "network_requests", "load_time_ms"]


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def offline_browser(viewport: tuple[int, int] = (1400, 900), *, proxy_port: int | None = None) -> Iterator:
    """A selenium Chrome driver (headless Chromium, network off, browser and performance logs on);
    quit and its profile removed on exit.

    Args:
        viewport: the window's size in CSS pixels.
        proxy_port: a local server (on 127.0.0.1) that every request goes to, loopback included, as
            to a proxy (the request line holds the whole URL): the one source of what pages may load,
            e.g. a test serving a built site. Default: a closed port, and DevTools' offline mode on
            too -- nothing loads but ``file://`` URLs.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from colbench_env.evaluation.render import chromium_arguments, find_chromedriver, find_chromium

    profile = tempfile.mkdtemp(prefix="colbench-view-")
    options = webdriver.ChromeOptions()
    options.binary_location = find_chromium()
    for arg in chromium_arguments(profile, _closed_port() if proxy_port is None else proxy_port, viewport):
        options.add_argument(arg)
    options.add_argument("--allow-file-access-from-files")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = None
    try:
        driver = webdriver.Chrome(options=options, service=Service(executable_path=find_chromedriver()))
        w, h = viewport
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        driver.execute_cdp_cmd("Network.enable", {})
        if proxy_port is None:
            driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, js: str, what: str, timeout_s: float, *args):
    """Run ``js`` until it returns something other than null; return that."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = driver.execute_script(js, *args)
        if got is not None:
            return got
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} after {timeout_s} s")
        time.sleep(0.02)


def open_report(driver, path: str | Path, fragment: str = "", timeout_s: float = 60.0) -> float:
    """Load the report at ``path`` (``#fragment`` optional) and wait until its script says it is
    interactive and has drawn the view; returns ``window.colbench.ready`` (ms after navigation
    start: when the page became interactive)."""
    url = Path(path).resolve().as_uri() + (f"#{fragment.lstrip('#')}" if fragment else "")
    driver.get("about:blank")
    driver.get(url)
    ready = _wait(driver, "return window.colbench ? window.colbench.ready : null;", f"{url}: not interactive",
                  timeout_s)
    _wait(driver, "return window.colbench.shown;", f"{url}: no view drawn", timeout_s)
    return float(ready)


def goto(driver, fragment: str, timeout_s: float = 30.0) -> None:
    """Show the view ``#fragment`` of the report open in ``driver`` (as a click on a link to it)
    and wait until it is drawn."""
    fragment = "#" + fragment.lstrip("#")
    driver.execute_script("location.hash = arguments[0];", fragment)
    _wait(driver, "return window.colbench.shown === arguments[0] ? true : null;", f"view {fragment} not drawn",
          timeout_s, fragment)


def load_time_ms(driver) -> dict:
    """Timings of the page just loaded (ms after navigation start): ``interactive`` (the report's
    script finished: sorting, filters and views work), ``data`` (the episodes' block decoded),
    ``dom_content_loaded``, ``load``."""
    return driver.execute_script("""
        var n = performance.getEntriesByType('navigation')[0];
        return {interactive: window.colbench ? window.colbench.ready : null,
                data: window.colbench ? window.colbench.dataReady : null,
                dom_content_loaded: n ? n.domContentLoadedEventEnd : null, load: n ? n.loadEventEnd : null};""")


def console_errors(driver) -> list[dict]:
    """The browser log's entries of level WARNING or SEVERE since the last call."""
    return [e for e in driver.get_log("browser") if e.get("level") in ("WARNING", "SEVERE")]


def network_requests(driver) -> list[str]:
    """URLs of every network request (``http``, ``https``, ``ws``, ``wss``, ``ftp``) made since the
    last call (from the performance log; the log is drained). The browser's own ``chrome:`` pages are
    not listed."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if url.split(":", 1)[0].lower() in ("http", "https", "ws", "wss", "ftp"):
                urls.append(url)
    return urls
