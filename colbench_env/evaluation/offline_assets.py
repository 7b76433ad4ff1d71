"""Offline stand-ins for the network resources of ColBench pages, and the local server that serves them.

ColBench pages (ground truths and agent answers) link Tailwind CSS 2.2.19 from a CDN and images from
picsum.photos. To render them here as they look online, without the network:

* the Tailwind stylesheet is served from a local copy (``make assets`` in a checkout, else fetched once
  into the user cache on first use or by ``colbench setup``), found by :func:`find_tailwind_css`;
* picsum.photos images are served as deterministic placeholder PNGs of the requested size
  (:func:`placeholder_png`); the reference implementation normalises every picsum URL to image id 48,
  so a placeholder per size is as informative as the photo for comparing two pages;
* everything else is refused.

:func:`rewrite_for_offline` rewrites the known CDN/picsum URLs of a page to the :class:`AssetServer`, a
``ThreadingHTTPServer`` on 127.0.0.1 that serves registered pages, the stylesheet and the
placeholders. The server is also the browser's HTTP proxy (see :mod:`.render`): every request the
browser makes that is not addressed to the server itself (other hosts, IP literals, other local ports,
``CONNECT`` tunnels for HTTPS) reaches it as a proxy request, is recorded in
:attr:`AssetServer.blocked_log` and answered by closing the connection. The server never opens an
outgoing connection, so nothing a page asks for leaves the machine.
"""
from __future__ import annotations

import io
import os
import re
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from PIL import Image, ImageDraw

TAILWIND_VERSION = "2.2.19"
TAILWIND_FILENAME = f"tailwind-{TAILWIND_VERSION}.min.css"
#: the stylesheet link of real ColBench pages
TAILWIND_CDN_URL = f"https://cdn.jsdelivr.net/npm/tailwindcss@{TAILWIND_VERSION}/dist/tailwind.min.css"
#: largest placeholder side served, in pixels (larger requests get HTTP 400)
MAX_PLACEHOLDER_SIDE = 5000

__all__ = [
    "TAILWIND_VERSION", "TAILWIND_FILENAME", "TAILWIND_CDN_URL", "MAX_PLACEHOLDER_SIDE",
    "AssetsMissingError", "asset_dirs", "find_tailwind_css", "placeholder_png", "rewrite_for_offline",
    "AssetServer",
]

# Any Tailwind 2.x dist stylesheet on jsDelivr or unpkg (version pins such as @2, @^2, @2.2.19;
# minified or not; with or without scheme). All of them are served from the local 2.2.19 copy.
_TAILWIND_URL = re.compile(
    r"(?:https?:)?//(?:cdn\.jsdelivr\.net/npm|unpkg\.com)/tailwindcss@[\^~]?2(?:\.\d+){0,2}"
    r"/dist/tailwind(?:\.min)?\.css", re.I)
_PICSUM_ORIGIN = re.compile(r"(?:https?:)?//picsum\.photos/", re.I)
_PICSUM_PATH = re.compile(r"^/picsum\.photos/(?:id/\d+/)?(\d+)(?:/(\d+))?(?:\.(?:jpe?g|png|webp))?/?$", re.I)

LOCAL_TAILWIND_PATH = f"/colbench-assets/{TAILWIND_FILENAME}"
LOCAL_PICSUM_PREFIX = "/picsum.photos/"
PAGE_PREFIX = "/page/"


class AssetsMissingError(FileNotFoundError):
    """The local Tailwind stylesheet is not where the renderer looks for it."""


def asset_dirs(assets_dir: str | os.PathLike | None = None) -> list[Path]:
    """The folders searched for assets, in order.

    ``assets_dir`` when given (and only it); else ``$COLBENCH_ASSETS`` when set, ``assets/`` next to the
    repository (where ``make assets`` puts it), ``./assets`` and ``~/.cache/colbench/assets``.
    """
    if assets_dir is not None:
        return [Path(assets_dir)]
    dirs = []
    env = os.environ.get("COLBENCH_ASSETS")
    if env:
        dirs.append(Path(env))
    dirs.append(Path(__file__).resolve().parents[2] / "assets")
    dirs.append(Path.cwd() / "assets")
    dirs.append(Path.home() / ".cache" / "colbench" / "assets")
    seen, out = set(), []
    for d in dirs:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def find_tailwind_css(assets_dir: str | os.PathLike | None = None, *, fetch: bool = True) -> Path:
    """Path of the local ``tailwind-2.2.19.min.css``.

    When ``assets_dir`` is not given and no folder of :func:`asset_dirs` holds the file, it is fetched
    once into the user cache (:func:`.tailwind_fetch.fetch_tailwind`: ``npm pack``, checksum checked)
    unless ``fetch`` is false.

    Raises:
        AssetsMissingError: the file is not there and could not be fetched; the message lists the
            folders searched and what to install or run.
    """
    searched = asset_dirs(assets_dir)
    for d in searched:
        p = d / TAILWIND_FILENAME
        if p.is_file():
            return p
    why = ""
    if assets_dir is None and fetch:
        from .tailwind_fetch import TailwindFetchError, fetch_tailwind

        try:
            return fetch_tailwind()
        except TailwindFetchError as e:
            why = f" Fetching it failed: {e}."
    raise AssetsMissingError(
        f"{TAILWIND_FILENAME} not found in: " + ", ".join(str(d) for d in searched) + "." + why
        + " Run `colbench setup` (or `make assets` in the colbench repository; both fetch tailwindcss@"
        + TAILWIND_VERSION + " from the npm registry), or put dist/tailwind.min.css of that package at one of"
        " these paths under that name, or point $COLBENCH_ASSETS at its folder.")


def placeholder_png(width: int, height: int) -> bytes:
    """A deterministic PNG of ``width`` x ``height`` standing in for a picsum.photos image.

    A neutral grey diagonal gradient (light top-left to darker bottom-right) with a 1-pixel darker
    border and the size written in the middle, so images of different sizes look different.
    """
    if not (1 <= width <= MAX_PLACEHOLDER_SIDE and 1 <= height <= MAX_PLACEHOLDER_SIDE):
        raise ValueError(f"placeholder size must be within 1..{MAX_PLACEHOLDER_SIDE} px, got {width}x{height}")
    y = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 1.0, width, dtype=np.float32)[None, :]
    level = 205.0 - 60.0 * (x + y) / 2.0
    arr = np.repeat(np.clip(level, 0, 255).astype(np.uint8)[:, :, None], 3, axis=2)
    arr[:, :, 2] = np.clip(arr[:, :, 2].astype(np.int16) + 8, 0, 255)  # a faint cool tint
    img = Image.fromarray(arr, "RGB")
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, width - 1, height - 1], outline=(120, 120, 128))
    label = f"{width}x{height}"
    if width >= 40 and height >= 14:
        box = draw.textbbox((0, 0), label)
        tw, th = box[2] - box[0], box[3] - box[1]
        draw.text(((width - tw) // 2, (height - th) // 2), label, fill=(90, 90, 96))
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def rewrite_for_offline(html: str, base_url: str) -> str:
    """Point the known CDN Tailwind 2 stylesheet and picsum.photos URLs of ``html`` at ``base_url``.

    ``base_url`` is the asset server's origin, e.g. ``http://127.0.0.1:40123``. Tailwind 2 dist URLs on
    jsDelivr/unpkg become ``{base_url}/colbench-assets/tailwind-2.2.19.min.css``;
    ``https://picsum.photos/<rest>`` becomes ``{base_url}/picsum.photos/<rest>``. Other URLs are kept
    (the browser cannot reach them).
    """
    base = base_url.rstrip("/")
    html = _TAILWIND_URL.sub(base + LOCAL_TAILWIND_PATH, html)
    return _PICSUM_ORIGIN.sub(base + LOCAL_PICSUM_PREFIX, html)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "AssetServer"

    def log_message(self, format, *args):  # noqa: A002 - silence the default stderr log
        pass

    def _local_path(self) -> str | None:
        """The path when the request is addressed to this server, else None (a proxy request)."""
        target = self.path
        if target.startswith("/"):
            return target
        parts = urlsplit(target)
        if parts.scheme == "http" and parts.hostname == self.server.host and parts.port == self.server.port:
            return parts.path + (f"?{parts.query}" if parts.query else "")
        return None

    def _refuse(self, what: str) -> None:
        self.server._record(blocked=what)
        self.close_connection = True  # no response at all: the browser sees a failed request

    def _send(self, code: int, body: bytes, content_type: str, cache: bool = False) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if cache else "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_CONNECT(self):  # noqa: N802
        self._refuse(f"CONNECT {self.path}")

    def do_GET(self):  # noqa: N802
        path = self._local_path()
        if path is None:
            self._refuse(f"{self.command} {self.path}")
            return
        self.server._record(served=path)
        route = path.split("?", 1)[0]
        if route == LOCAL_TAILWIND_PATH:
            self._send(200, self.server.tailwind_css, "text/css; charset=utf-8", cache=True)
        elif route.startswith(PAGE_PREFIX):
            body = self.server.page(route[len(PAGE_PREFIX):])
            if body is None:
                self._send(404, b"no such page", "text/plain")
            else:
                self._send(200, body, "text/html; charset=utf-8")
        elif m := _PICSUM_PATH.match(route):
            w = int(m.group(1))
            h = int(m.group(2) or m.group(1))
            try:
                body = self.server.placeholder(w, h)
            except ValueError as e:
                self._send(400, str(e).encode(), "text/plain")
            else:
                self._send(200, body, "image/png", cache=True)
        elif route == "/favicon.ico":
            self._send(404, b"", "text/plain", cache=True)
        else:
            self._send(404, b"not found", "text/plain")

    do_HEAD = do_GET

    def _other(self):
        path = self._local_path()
        if path is None:
            self._refuse(f"{self.command} {self.path}")
        else:
            self.server._record(served=path)
            self._send(405, b"method not allowed", "text/plain")

    do_POST = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = _other


class AssetServer(ThreadingHTTPServer):
    """Local HTTP server (and refusing proxy) for rendering pages offline; see the module docstring.

    Args:
        tailwind_css: path of the local Tailwind 2.2.19 stylesheet (default: :func:`find_tailwind_css`).

    Use as a context manager, or call :meth:`start` and :meth:`close`. :meth:`add_page` registers a
    page (rewritten by :func:`rewrite_for_offline`) under a unique URL; :meth:`remove_page` forgets it.

    Attributes:
        requests_log: paths of the requests addressed to this server, in arrival order.
        blocked_log: requests refused as a proxy (``"GET http://example.com/"``, ``"CONNECT host:443"``),
            in arrival order. Chromium's own background requests show up here too.
    """

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, tailwind_css: str | os.PathLike | None = None):
        path = Path(tailwind_css) if tailwind_css is not None else find_tailwind_css()
        if not path.is_file():
            raise AssetsMissingError(f"Tailwind stylesheet not found: {path}; run `make assets`")
        self.tailwind_css = path.read_bytes()
        super().__init__(("127.0.0.1", 0), _Handler)
        self.host, self.port = self.server_address[0], self.server_address[1]
        self.base_url = f"http://{self.host}:{self.port}"
        self.requests_log: list[str] = []
        self.blocked_log: list[str] = []
        self._pages: dict[str, bytes] = {}
        self._placeholders: dict[tuple[int, int], bytes] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> "AssetServer":
        """Serve in a daemon thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.serve_forever, name="colbench-asset-server", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()

    def handle_error(self, request, client_address) -> None:
        """A browser that went away mid-request (killed, or its page abandoned) is not an error
        worth a traceback on stderr; anything else is reported as ``socketserver`` does."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)

    def __enter__(self) -> "AssetServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- pages -----------------------------------------------------------------------------------
    def add_page(self, html: str) -> str:
        """Register ``html`` (rewritten for offline use) and return its URL, unique per call."""
        token = f"{uuid.uuid4().hex}.html"
        body = rewrite_for_offline(html, self.base_url).encode("utf-8")
        with self._lock:
            self._pages[token] = body
        return f"{self.base_url}{PAGE_PREFIX}{token}"

    def remove_page(self, url: str) -> None:
        """Forget a page registered by :meth:`add_page` (no error when unknown)."""
        token = url.rsplit("/", 1)[-1]
        with self._lock:
            self._pages.pop(token, None)

    def page(self, token: str) -> bytes | None:
        with self._lock:
            return self._pages.get(token)

    def placeholder(self, width: int, height: int) -> bytes:
        """:func:`placeholder_png`, cached per size for the server's lifetime."""
        with self._lock:
            body = self._placeholders.get((width, height))
        if body is None:
            body = placeholder_png(width, height)
            with self._lock:
                self._placeholders[(width, height)] = body
        return body

    def _record(self, served: str | None = None, blocked: str | None = None) -> None:
        with self._lock:
            if served is not None:
                self.requests_log.append(served)
            if blocked is not None:
                self.blocked_log.append(blocked)
