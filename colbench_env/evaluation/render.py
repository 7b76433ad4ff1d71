"""Render HTML pages to screenshots in headless Chromium, offline, with a pool of long-lived drivers.

::

    from colbench_env.evaluation.render import Renderer
    with Renderer(pool_size=2, viewport=(1280, 800), page_load_timeout_s=15) as r:
        img = r.render(html)                  # PIL.Image, RGB, full page
        imgs = r.render_many([html1, html2])  # parallel over the pool, order preserved

Semantics:

* Each pool slot is one chromedriver + one headless Chromium (``--headless=new``, fresh temporary
  ``--user-data-dir`` removed on close), started once and reused for many pages.
* A page is served by a local :class:`~.offline_assets.AssetServer` under a unique URL (never a
  ``data:`` URL), after :func:`~.offline_assets.rewrite_for_offline`: the CDN Tailwind 2 stylesheet
  comes from the local copy, picsum.photos images are placeholder PNGs of the requested size. That
  server is also Chromium's proxy for every request (loopback included) and refuses all requests not
  addressed to itself; host name resolution is disabled too. Nothing a page requests leaves the machine.
* The layout viewport is ``viewport`` (width x height CSS pixels, device scale factor 1). The
  screenshot is the full page: ``viewport`` width x the document's scroll height, at least the
  viewport height and at most ``max_height`` (the rest is cut).
* Page scripts run, except that ``alert``/``confirm``/``prompt``/``print``/``window.open`` do nothing
  (they would block the driver or open windows).
* The HTML is served as it is (``text/html; charset=utf-8``); a body-only fragment or an empty string
  renders as the browser parses it (an empty string gives a blank white page).
* A page whose load does not finish within ``page_load_timeout_s``, or a driver that crashes or hangs,
  gets the driver replaced by a fresh one and the page retried once; a second failure raises
  :class:`RenderTimeoutError` (timeouts) or :class:`RenderError` (anything else). The pool stays
  usable after either.
* Drivers always quit: on :meth:`Renderer.close` / leaving the ``with`` block, when the renderer is
  garbage-collected, and at interpreter exit. Quitting kills any Chromium process left over.
  ``close(graceful=False)`` kills the drivers at once instead of asking them to quit (a prompt
  shutdown: renders in progress fail). A process that dies without closing (SIGKILL) takes its
  drivers and their Chromium processes with it (:mod:`.orphan_guard`).
"""
from __future__ import annotations

import base64
import io
import os
import queue
import shutil
import tempfile
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import psutil
from PIL import Image

from . import orphan_guard
from .offline_assets import AssetServer, find_tailwind_css

__all__ = ["RenderConfig", "Renderer", "RenderError", "RenderTimeoutError", "BrowserNotFoundError",
           "find_chromium", "find_chromedriver", "chromium_arguments"]

_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: run before any script of every page: dialogs, printing and pop-ups would block or leak the driver
_NEUTRALISE_JS = ("window.alert = function () {}; window.confirm = function () { return false; };"
                  " window.prompt = function () { return null; }; window.print = function () {};"
                  " window.open = function () { return null; };")
_HEIGHT_JS = ("return Math.max(document.documentElement ? document.documentElement.scrollHeight : 0,"
              " document.body ? document.body.scrollHeight : 0);")
#: seconds allowed, beyond the page-load timeout, for the rest of a render before the driver is killed
_WATCHDOG_SLACK_S = 30.0


class RenderError(RuntimeError):
    """A page could not be rendered (the driver failed twice)."""


class RenderTimeoutError(RenderError):
    """A page did not finish loading within the page-load timeout, twice."""


class BrowserNotFoundError(FileNotFoundError):
    """Chromium or chromedriver is not installed where the renderer looks."""


def find_chromium(path: str | None = None) -> str:
    """The Chromium binary: ``path``, else ``$COLBENCH_CHROMIUM``, else the first of chromium,
    chromium-browser, google-chrome on ``PATH``."""
    path = path or os.environ.get("COLBENCH_CHROMIUM")
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise BrowserNotFoundError(f"Chromium binary not found or not executable: {path}")
        return path
    for name in _CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError("Chromium not found on PATH (looked for " + ", ".join(_CHROMIUM_NAMES)
                               + "). Install it: `make browser` or `sudo apt-get install chromium chromium-driver`.")


def find_chromedriver(path: str | None = None) -> str:
    """The chromedriver binary: ``path``, else ``$COLBENCH_CHROMEDRIVER``, else ``chromedriver`` on PATH."""
    path = path or os.environ.get("COLBENCH_CHROMEDRIVER")
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise BrowserNotFoundError(f"chromedriver not found or not executable: {path}")
        return path
    found = shutil.which("chromedriver")
    if found:
        return found
    raise BrowserNotFoundError("chromedriver not found on PATH. Install it: `make browser` or "
                               "`sudo apt-get install chromium-driver`.")


def chromium_arguments(user_data_dir: str, proxy_port: int, viewport: tuple[int, int]) -> list[str]:
    """Command-line switches for one headless Chromium of the pool."""
    w, h = viewport
    return [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic", f"--user-data-dir={user_data_dir}",
        f"--window-size={w},{h}", "--hide-scrollbars", "--force-device-scale-factor=1",
        "--force-color-profile=srgb", "--mute-audio", "--disable-extensions",
        "--disable-default-apps", "--no-default-browser-check", "--disable-breakpad",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp", "--disable-domain-reliability",
        "--disable-client-side-phishing-detection", "--no-pings", "--disable-notifications",
        "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,"
        "NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater",
        # The asset server is the proxy for everything, loopback included ("<-loopback>" removes
        # Chromium's implicit direct connection to localhost); it refuses all that is not its own.
        f"--proxy-server=http://127.0.0.1:{proxy_port}", "--proxy-bypass-list=<-loopback>",
        # No name resolution at all (the proxy is an IP literal, so nothing needs it).
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ]


@dataclass(frozen=True)
class RenderConfig:
    """Settings of a :class:`Renderer`.

    Attributes:
        pool_size: number of long-lived Chromium drivers rendering in parallel (>= 1).
        viewport: (width, height) of the layout viewport in CSS pixels; screenshots are ``width`` wide.
        page_load_timeout_s: seconds a page may take to load before its driver is replaced.
        max_height: tallest screenshot in pixels; longer pages are cut (>= viewport height).
        chromium_path: Chromium binary (default: :func:`find_chromium`).
        chromedriver_path: chromedriver binary (default: :func:`find_chromedriver`).
        assets_dir: folder holding ``tailwind-2.2.19.min.css`` (default: see
            :func:`~.offline_assets.asset_dirs`).
    """

    pool_size: int = 2
    viewport: tuple[int, int] = (1280, 800)
    page_load_timeout_s: float = 15.0
    max_height: int = 4000
    chromium_path: str | None = None
    chromedriver_path: str | None = None
    assets_dir: str | None = None

    def __post_init__(self):
        if not isinstance(self.pool_size, int) or isinstance(self.pool_size, bool) or self.pool_size < 1:
            raise ValueError(f"RenderConfig.pool_size must be an int >= 1, got {self.pool_size!r}")
        vp = self.viewport
        if (not isinstance(vp, (tuple, list)) or len(vp) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and 100 <= v <= 10000 for v in vp)):
            raise ValueError(f"RenderConfig.viewport must be (width, height), ints in 100..10000, got {vp!r}")
        object.__setattr__(self, "viewport", (int(vp[0]), int(vp[1])))
        t = self.page_load_timeout_s
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not t > 0:
            raise ValueError(f"RenderConfig.page_load_timeout_s must be a number > 0, got {t!r}")
        if not isinstance(self.max_height, int) or isinstance(self.max_height, bool) or self.max_height < vp[1]:
            raise ValueError(f"RenderConfig.max_height must be an int >= viewport height {vp[1]}, "
                             f"got {self.max_height!r}")


def _kill_tree(pid: int | None, extra: list[psutil.Process] = ()) -> None:
    """SIGKILL ``pid``, its descendants and ``extra``; return once all are dead (at most ~5 s).

    Dead means gone or a zombie: a zombie is reaped by its parent (chromedriver reaps Chromium, the
    renderer reaps chromedriver in :func:`_shutdown_browser`, orphans are reaped by init).
    """
    procs: list[psutil.Process] = list(extra)
    if pid is not None:
        try:
            root = psutil.Process(pid)
            procs += [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            pass
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    deadline = time.monotonic() + 5.0
    while procs and time.monotonic() < deadline:
        procs = [p for p in procs if _alive(p)]
        if procs:
            time.sleep(0.01)


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _shutdown_browser(driver, service, user_data_dir: str) -> None:
    """Quit one driver for good: graceful quit (bounded), then kill what is left, then remove the profile.

    A module-level function (not a method) so that finalizers can hold it without holding the browser.
    """
    tree: list[psutil.Process] = []
    proc = getattr(service, "process", None)
    root_pid = proc.pid if proc is not None else None
    if root_pid is not None:
        try:
            tree = psutil.Process(root_pid).children(recursive=True)
        except psutil.NoSuchProcess:
            tree = []
    if driver is not None:
        quitter = threading.Thread(target=_quiet_quit, args=(driver,), daemon=True)
        quitter.start()
        quitter.join(10.0)
    _kill_tree(root_pid, tree)
    if proc is not None:
        try:
            proc.wait(timeout=5)  # reap chromedriver (our child)
        except Exception:
            pass
    if root_pid is not None:
        orphan_guard.unregister(root_pid)
    shutil.rmtree(user_data_dir, ignore_errors=True)


def _quiet_quit(driver) -> None:
    try:
        driver.quit()
    except Exception:
        pass


class _Browser:
    """One chromedriver + headless Chromium, owned by one pool slot at a time."""

    def __init__(self, config: RenderConfig, chromium: str, chromedriver: str, proxy_port: int):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.config = config
        self.user_data_dir = tempfile.mkdtemp(prefix="colbench-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for arg in chromium_arguments(self.user_data_dir, proxy_port, config.viewport):
            options.add_argument(arg)
        options.page_load_strategy = "normal"
        options.unhandled_prompt_behavior = "dismiss"  # e.g. a beforeunload prompt
        # Chromium's own temporary folders (org.chromium.Chromium.*, its singleton socket) go inside
        # the profile, so that removing the profile removes them too, also after a kill
        tmp = os.path.join(self.user_data_dir, "tmp")
        os.mkdir(tmp)
        self.service = Service(executable_path=chromedriver, env={**os.environ, "TMPDIR": tmp})
        self.driver = None
        # Until the driver exists, the finalizer cleans up the service and the profile.
        self._finalizer = weakref.finalize(self, _shutdown_browser, None, self.service, self.user_data_dir)
        try:
            self.driver = webdriver.Chrome(options=options, service=self.service)
            if self.driver_pid is not None:  # chromedriver and its Chromium die with this process
                orphan_guard.register(self.driver_pid, remove=[self.user_data_dir])
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _shutdown_browser, self.driver, self.service,
                                               self.user_data_dir)
            self.driver.set_page_load_timeout(config.page_load_timeout_s)
            self.driver.set_script_timeout(config.page_load_timeout_s)
            w, h = config.viewport
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
            self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _NEUTRALISE_JS})
        except Exception:
            self.close()
            raise

    @property
    def driver_pid(self) -> int | None:
        """Process id of chromedriver."""
        proc = getattr(self.service, "process", None)
        return proc.pid if proc is not None else None

    def processes(self) -> list[psutil.Process]:
        """chromedriver and all its descendant processes (Chromium's browser, zygotes, renderers...)."""
        pid = self.driver_pid
        if pid is None:
            return []
        try:
            root = psutil.Process(pid)
            return [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def browser_pid(self) -> int | None:
        """Process id of the Chromium browser process (chromedriver's child)."""
        pid = self.driver_pid
        try:
            kids = psutil.Process(pid).children() if pid is not None else []
        except psutil.NoSuchProcess:
            return None
        return kids[0].pid if kids else None

    def kill(self) -> None:
        """Kill chromedriver and Chromium at once (used by the watchdog on a hung render)."""
        _kill_tree(self.driver_pid)

    def capture(self, url: str) -> Image.Image:
        """Load ``url`` and take a full-page screenshot (see the module docstring)."""
        d = self.driver
        w, vh = self.config.viewport
        d.get(url)
        height = d.execute_script(_HEIGHT_JS)
        height = max(vh, min(int(height or 0), self.config.max_height))
        shot = d.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True, "optimizeForSpeed": True,
            "clip": {"x": 0, "y": 0, "width": w, "height": height, "scale": 1},
        })
        img = Image.open(io.BytesIO(base64.b64decode(shot["data"])))
        return img.convert("RGB")

    def close(self, graceful: bool = True) -> None:
        """Quit and clean up (idempotent). ``graceful=False`` kills the processes first (for a driver
        that is not trusted any more: a graceful quit of a hung browser can take seconds)."""
        if not graceful and self._finalizer.alive:
            self.kill()
        self._finalizer()


class _PoolState:
    """What must be cleaned up when a Renderer goes away; held by its finalizer, not by the Renderer."""

    def __init__(self):
        self.lock = threading.Lock()
        self.browsers: set[_Browser] = set()
        self.server: AssetServer | None = None
        self.closed = False

    def close(self) -> None:
        with self.lock:
            self.closed = True
            browsers, self.browsers = list(self.browsers), set()
            server, self.server = self.server, None
        threads = [threading.Thread(target=b.close, daemon=True) for b in browsers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if server is not None:
            server.close()


class Renderer:
    """A pool of headless Chromium drivers turning HTML into full-page screenshots, offline.

    Args:
        pool_size, viewport, page_load_timeout_s, max_height, chromium_path, chromedriver_path, assets_dir: see
            :class:`RenderConfig` (or pass ``config=RenderConfig(...)``).

    The drivers start in parallel in the constructor. Use as a context manager or call :meth:`close`.
    Thread-safe: :meth:`render` may be called from several threads (each call takes a free driver).

    Attributes:
        config: the :class:`RenderConfig`.
        replacements: how many drivers were replaced after a crash, hang or timeout.
        requests_log: paths the local asset server served (see the property).
        blocked_log: requests refused because they were not for the asset server (see the property).

    Raises:
        BrowserNotFoundError: Chromium or chromedriver missing.
        AssetsMissingError: the local Tailwind stylesheet is missing (run ``make assets``).
    """

    def __init__(self, pool_size: int = 2, viewport: tuple[int, int] = (1280, 800),
                 page_load_timeout_s: float = 15.0, max_height: int = 4000, *,
                 chromium_path: str | None = None, chromedriver_path: str | None = None,
                 assets_dir: str | None = None, config: RenderConfig | None = None):
        self.config = config or RenderConfig(pool_size=pool_size, viewport=tuple(viewport),
                                             page_load_timeout_s=page_load_timeout_s, max_height=max_height,
                                             chromium_path=chromium_path, chromedriver_path=chromedriver_path,
                                             assets_dir=assets_dir)
        self._chromium = find_chromium(self.config.chromium_path)
        self._chromedriver = find_chromedriver(self.config.chromedriver_path)
        css = find_tailwind_css(self.config.assets_dir)
        self._state = _PoolState()
        self._finalizer = weakref.finalize(self, _PoolState.close, self._state)
        self._state.server = AssetServer(css).start()
        self._slots: queue.Queue[_Browser | None] = queue.Queue()
        self.replacements = 0
        try:
            with ThreadPoolExecutor(self.config.pool_size) as ex:
                for b in ex.map(lambda _: self._start_browser(), range(self.config.pool_size)):
                    self._slots.put(b)
        except Exception:
            self.close()
            raise

    # -- public ----------------------------------------------------------------------------------
    @property
    def requests_log(self) -> list[str]:
        """Paths the local asset server was asked for (a copy), in arrival order."""
        server = self._state.server
        return list(server.requests_log) if server is not None else []

    @property
    def blocked_log(self) -> list[str]:
        """Requests refused by the proxy (a copy): everything the browsers tried to reach elsewhere."""
        server = self._state.server
        return list(server.blocked_log) if server is not None else []

    @property
    def closed(self) -> bool:
        return self._state.closed

    def render(self, html: str) -> Image.Image:
        """Full-page screenshot of ``html`` (see the module docstring) as an RGB ``PIL.Image``.

        Raises:
            TypeError: ``html`` is not a str.
            RenderTimeoutError: the page did not load in time, twice (on two fresh drivers).
            RenderError: the driver failed twice for another reason.
        """
        if not isinstance(html, str):
            raise TypeError(f"html must be a str, got {type(html).__name__}")
        self._check_open()
        slot = [self._slots.get()]
        try:
            return self._render_with_retry(slot, html)
        finally:
            self._slots.put(slot[0])

    def render_many(self, htmls, *, return_exceptions: bool = False) -> list:
        """Render several pages in parallel over the pool; results in input order.

        With ``return_exceptions=True`` a page that fails gives its exception in its place instead of
        raising (the other pages are still rendered).
        """
        htmls = list(htmls)
        for i, h in enumerate(htmls):
            if not isinstance(h, str):
                raise TypeError(f"htmls[{i}] must be a str, got {type(h).__name__}")
        self._check_open()

        def one(h):
            try:
                return self.render(h)
            except RenderError as e:
                if return_exceptions:
                    return e
                raise

        if len(htmls) <= 1 or self.config.pool_size == 1:
            return [one(h) for h in htmls]
        with ThreadPoolExecutor(min(self.config.pool_size, len(htmls)), thread_name_prefix="colbench-render") as ex:
            return list(ex.map(one, htmls))

    def driver_pids(self) -> list[int]:
        """chromedriver process ids of the idle drivers of the pool."""
        return [b.driver_pid for b in self._idle_browsers() if b.driver_pid is not None]

    def browser_pids(self) -> list[int]:
        """Chromium browser process ids of the idle drivers of the pool."""
        return [p for p in (b.browser_pid() for b in self._idle_browsers()) if p is not None]

    def process_ids(self) -> list[int]:
        """Every process id of the pool: chromedrivers, Chromium browsers and their helpers."""
        with self._state.lock:
            browsers = list(self._state.browsers)
        return sorted({p.pid for b in browsers for p in b.processes()})

    def close(self, graceful: bool = True) -> None:
        """Quit every driver, stop the asset server (idempotent). ``graceful=False`` kills every
        driver and its Chromium processes first (no quit handshake: renders in progress fail)."""
        if not graceful:
            with self._state.lock:
                browsers = list(self._state.browsers)
            for b in browsers:
                b.kill()
        self._finalizer()

    def __copy__(self) -> "Renderer":
        """A renderer is a handle on a shared browser pool: copies (e.g. ``gym.make`` deep-copying
        its keyword arguments into the env spec) share the pool instead of starting browsers."""
        return self

    def __deepcopy__(self, memo: dict) -> "Renderer":
        return self

    def __enter__(self) -> "Renderer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._state.closed:
            raise RenderError("the Renderer is closed")

    def _idle_browsers(self) -> list[_Browser]:
        with self._slots.mutex:
            return [b for b in self._slots.queue if b is not None]

    def _start_browser(self) -> _Browser:
        server = self._state.server
        if server is None:
            raise RenderError("the Renderer is closed")
        b = _Browser(self.config, self._chromium, self._chromedriver, server.port)
        with self._state.lock:
            if self._state.closed:
                b.close()
                raise RenderError("the Renderer is closed")
            self._state.browsers.add(b)
        return b

    def _drop_browser(self, b: _Browser | None) -> None:
        if b is None:
            return
        with self._state.lock:
            self._state.browsers.discard(b)
        b.close(graceful=False)

    def _attempt(self, browser: _Browser, url: str) -> Image.Image:
        """One render on ``browser``; a watchdog kills the browser if it overruns."""
        fired = threading.Event()

        def watchdog():
            fired.set()
            browser.kill()

        timer = threading.Timer(self.config.page_load_timeout_s + _WATCHDOG_SLACK_S, watchdog)
        timer.daemon = True
        timer.start()
        try:
            return browser.capture(url)
        except Exception as e:
            if fired.is_set():
                raise _Hung(f"the driver hung for over {timer.interval:.0f} s and was killed") from e
            raise
        finally:
            timer.cancel()

    def _render_with_retry(self, slot: list, html: str) -> Image.Image:
        """Render on the slot's browser (started first when the slot is empty); on failure replace it
        and retry once. ``slot[0]`` always holds the browser now owning the slot (None: none running)."""
        from selenium.common.exceptions import TimeoutException

        server = self._state.server
        if server is None:
            raise RenderError("the Renderer is closed")
        url = server.add_page(html)
        errors: list[BaseException] = []
        try:
            for _ in range(2):
                try:
                    if slot[0] is None:
                        slot[0] = self._start_browser()
                    return self._attempt(slot[0], url)
                except Exception as e:  # crashed, hung, timed out: the driver is not trusted any more
                    errors.append(e)
                    if slot[0] is not None:
                        self._drop_browser(slot[0])
                        slot[0] = None
                        with self._state.lock:
                            self.replacements += 1
            if not self._state.closed:  # keep the slot warm for the next page when possible
                try:
                    slot[0] = self._start_browser()
                except Exception:
                    slot[0] = None
        finally:
            server.remove_page(url)
        timeouts = [e for e in errors if isinstance(e, (TimeoutException, _Hung))]
        detail = "; ".join(f"{type(e).__name__}: {_first_line(e)}" for e in errors)
        if len(timeouts) == len(errors):
            raise RenderTimeoutError(
                f"page did not finish loading within {self.config.page_load_timeout_s:g} s on two fresh "
                f"drivers (page_load_timeout_s); {detail}") from errors[-1]
        raise RenderError(f"rendering failed twice (the driver was replaced each time): {detail}") from errors[-1]


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    if text.startswith("Message:"):
        text = text[len("Message:"):].strip()
    return text.splitlines()[0] if text else ""


class _Hung(RuntimeError):
    """The watchdog killed a driver that overran its deadline."""
