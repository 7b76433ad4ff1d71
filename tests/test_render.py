"""The headless-Chromium renderer: offline fidelity, isolation, pool, crash recovery, clean shutdown.

Real Chromium, real chromedriver, real local HTTP servers; needs `make browser assets`.
"""
from __future__ import annotations

import gc
import io
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psutil
import pytest
from PIL import Image

from colbench_env.evaluation.offline_assets import (
    TAILWIND_CDN_URL, AssetsMissingError, AssetServer, find_tailwind_css, placeholder_png, rewrite_for_offline)
from colbench_env.evaluation.render import RenderConfig, Renderer, RenderError, RenderTimeoutError

REPO = Path(__file__).resolve().parents[1]
CDN_LINK = f'<link href="{TAILWIND_CDN_URL}" rel="stylesheet">'
GREEN_500 = (16, 185, 129)  # Tailwind 2 green-500, #10B981

pytestmark = pytest.mark.timeout(120)


def _live(pids: list[int]) -> dict[psutil.Process, str]:
    """The processes of ``pids`` still there, with their names: Chromium starts and ends short-lived
    helpers on its own, so one listed by ``process_ids()`` may be gone a moment later."""
    out = {}
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            out[proc] = proc.name()
        except psutil.NoSuchProcess:
            pass
    return out


def _dead(procs: list[psutil.Process], wait_s: float = 5.0) -> list[psutil.Process]:
    """The processes of ``procs`` still alive or left as zombies after up to ``wait_s`` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        left = []
        for p in procs:
            try:
                if p.is_running():
                    left.append(p)
            except psutil.NoSuchProcess:
                pass
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


@pytest.fixture(scope="module")
def renderer():
    with Renderer(pool_size=2, viewport=(1280, 800), page_load_timeout_s=15) as r:
        yield r


# -- offline fidelity --------------------------------------------------------------------------------
def test_cdn_tailwind_is_served_locally_with_exact_colours(renderer):
    img = renderer.render(f'<html><head>{CDN_LINK}</head><body class="bg-green-500"></body></html>')
    assert img.mode == "RGB" and img.size == (1280, 800)
    assert img.getpixel((640, 400)) == GREEN_500
    assert img.getpixel((5, 795)) == GREEN_500
    assert "/colbench-assets/tailwind-2.2.19.min.css" in renderer.requests_log


def test_tailwind_utilities_layout(renderer):
    html = (f'<html><head>{CDN_LINK}</head><body class="m-0">'
            '<div class="w-1/2 h-32 bg-red-500"></div><div class="flex"><div class="w-64 h-16 bg-blue-600"></div>'
            '<div class="w-64 h-16 bg-yellow-300"></div></div></body></html>')
    img = renderer.render(html)
    assert img.getpixel((600, 60)) == (239, 68, 68)      # red-500, left half, 128 px tall
    assert img.getpixel((700, 60)) == (255, 255, 255)
    assert img.getpixel((100, 150)) == (37, 99, 235)     # blue-600, 256 px wide row below
    assert img.getpixel((300, 150)) == (252, 211, 77)    # yellow-300
    assert img.getpixel((600, 150)) == (255, 255, 255)


def test_picsum_images_are_local_placeholders_of_the_requested_size(renderer):
    html = ('<body style="margin:0">'
            '<img style="display:block" src="https://picsum.photos/id/48/300/200">'
            '<img style="display:block" src="https://picsum.photos/120">'
            '<img style="display:block" src="https://picsum.photos/id/7/64/40?grayscale"></body>')
    img = renderer.render(html)
    expect = Image.open(io.BytesIO(placeholder_png(300, 200))).convert("RGB")
    assert img.crop((0, 0, 300, 200)).tobytes() == expect.tobytes()
    square = Image.open(io.BytesIO(placeholder_png(120, 120))).convert("RGB")
    assert img.crop((0, 200, 120, 320)).tobytes() == square.tobytes()
    assert img.getpixel((301, 100)) == (255, 255, 255)  # exactly 300 px wide
    log = renderer.requests_log
    for path in ("/picsum.photos/id/48/300/200", "/picsum.photos/120", "/picsum.photos/id/7/64/40?grayscale"):
        assert path in log


def test_placeholder_png_is_deterministic_and_sized():
    a, b = placeholder_png(200, 100), placeholder_png(200, 100)
    assert a == b
    im = Image.open(io.BytesIO(a))
    assert im.size == (200, 100) and im.format == "PNG"
    assert placeholder_png(100, 200) != a
    with pytest.raises(ValueError, match="within 1..5000"):
        placeholder_png(0, 10)


def test_rewrite_for_offline_urls():
    base = "http://127.0.0.1:5"
    html = (f'<link href="{TAILWIND_CDN_URL}"><link href="//unpkg.com/tailwindcss@^2/dist/tailwind.css">'
            '<img src="https://picsum.photos/id/48/10/20"><img src="http://picsum.photos/30">'
            '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@3.4.0/dist/tailwind.min.css">'
            '<img src="https://example.com/picsum.photos/1">')
    out = rewrite_for_offline(html, base)
    assert out.count(f"{base}/colbench-assets/tailwind-2.2.19.min.css") == 2
    assert f'src="{base}/picsum.photos/id/48/10/20"' in out and f'src="{base}/picsum.photos/30"' in out
    assert "tailwindcss@3.4.0" in out  # only Tailwind 2 is served locally
    assert 'src="https://example.com/picsum.photos/1"' in out


def test_missing_assets_error_names_make_assets(tmp_path):
    with pytest.raises(AssetsMissingError, match=r"make assets") as e:
        Renderer(pool_size=1, assets_dir=str(tmp_path))
    assert str(tmp_path) in str(e.value)
    assert find_tailwind_css().name == "tailwind-2.2.19.min.css"


# -- isolation: nothing leaves the machine -----------------------------------------------------------
class _Sentinel(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802
        type(self).hits.append(self.path)
        body = b"leaked"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def _non_loopback_ipv4() -> str | None:
    for addrs in psutil.net_if_addrs().values():
        for a in addrs:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                return a.address
    return None


def test_external_requests_are_blocked_and_nothing_is_served(renderer):
    _Sentinel.hits = []
    sentinel = ThreadingHTTPServer(("0.0.0.0", 0), _Sentinel)
    threading.Thread(target=sentinel.serve_forever, daemon=True).start()
    port = sentinel.server_address[1]
    ip = _non_loopback_ipv4()
    try:
        # The sentinel is reachable directly: it would see any request that escaped the browser.
        import urllib.request
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/probe", timeout=5).read() == b"leaked"
        assert _Sentinel.hits == ["/probe"]
        _Sentinel.hits = []
        urls = ["http://example.com/a.png", "http://93.184.216.34/b.png", "https://93.184.216.34/c.png",
                f"http://127.0.0.1:{port}/loopback.png", f"http://localhost:{port}/localhost.png"]
        if ip:
            urls.append(f"http://{ip}:{port}/lan.png")
        cells = "".join(f'<div id="m{i}" style="width:20px;height:20px;background:#000"></div>' for i in range(len(urls) + 2))
        imgs = "".join(f'<img src="{u}" onload="mark({i}, \'red\')" onerror="mark({i}, \'blue\')" width="1" height="1">'
                       for i, u in enumerate(urls))
        n = len(urls)
        html = textwrap.dedent(f"""\
            <html><head><script>
            function mark(i, c) {{ document.getElementById('m' + i).style.background = c; }}
            </script></head><body style="margin:0">{cells}
            <script>
            var x = new XMLHttpRequest();
            try {{ x.open('GET', 'http://93.184.216.34/xhr', false); x.send(); mark({n}, 'red'); }}
            catch (e) {{ mark({n}, 'blue'); }}
            fetch('http://example.com/fetch').catch(function () {{}});
            fetch('http://127.0.0.1:{port}/fetch').catch(function () {{}});
            </script>
            <script src="https://example.org/x.js" onerror="mark({n + 1}, 'blue')" onload="mark({n + 1}, 'red')"></script>
            {imgs}</body></html>""")
        img = renderer.render(html)
        for i in range(n + 2):
            assert img.getpixel((10, 20 * i + 10)) == (0, 0, 255), f"resource {i} did not fail: {(urls + ['xhr', 'script'])[i]}"
        expected_blocked = {"GET http://example.com/a.png", "GET http://93.184.216.34/b.png", "CONNECT 93.184.216.34:443",
                            f"GET http://127.0.0.1:{port}/loopback.png", "GET http://93.184.216.34/xhr",
                            "CONNECT example.org:443", "GET http://example.com/fetch", f"GET http://127.0.0.1:{port}/fetch"}
        deadline = time.monotonic() + 5
        while not expected_blocked <= set(renderer.blocked_log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert expected_blocked <= set(renderer.blocked_log)
        time.sleep(0.3)
        assert _Sentinel.hits == []
        allowed = ("/page/", "/colbench-assets/tailwind-2.2.19.min.css", "/picsum.photos/", "/favicon.ico")
        assert renderer.requests_log and all(p.startswith(allowed) for p in renderer.requests_log), renderer.requests_log
    finally:
        sentinel.shutdown()
        sentinel.server_close()


def test_asset_server_refuses_proxy_requests_and_unknown_paths():
    import http.client
    with AssetServer() as srv:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        c.request("GET", "/nope")
        assert c.getresponse().status == 404
        c.close()
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        c.request("GET", "http://example.com/x")  # a proxy request: refused without an answer
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            c.getresponse()
        c.close()
        url = srv.add_page("<p>hi</p>")
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        c.request("GET", url)  # absolute form addressed to the server itself: served
        r = c.getresponse()
        assert r.status == 200 and r.read() == b"<p>hi</p>"
        c.close()
        assert srv.blocked_log == ["GET http://example.com/x"]
        assert srv.requests_log[0] == "/nope"


# -- geometry, input forms, pool ---------------------------------------------------------------------
def test_full_page_viewport_and_height_cap(renderer):
    tall = ('<body style="margin:0"><div style="height:2500px;background:#f00"></div>'
            '<div style="height:100px;background:#00f"></div></body>')
    img = renderer.render(tall)
    assert img.size == (1280, 2600)
    assert img.getpixel((640, 2499)) == (255, 0, 0) and img.getpixel((640, 2550)) == (0, 0, 255)
    # 100vh is the viewport height, not the page height; 100vw the viewport width
    vh = renderer.render('<body style="margin:0"><div style="width:100vw;height:50vh;background:#0f0"></div></body>')
    assert vh.size == (1280, 800)
    assert vh.getpixel((1279, 399)) == (0, 255, 0) and vh.getpixel((640, 401)) == (255, 255, 255)
    huge = renderer.render('<body style="margin:0"><div style="height:9000px;background:#00f"></div></body>')
    assert huge.size == (1280, 4000) and huge.getpixel((5, 3999)) == (0, 0, 255)


def test_empty_and_body_only_pages(renderer):
    empty = renderer.render("")
    assert empty.size == (1280, 800) and empty.getextrema() == ((255, 255), (255, 255), (255, 255))
    body = renderer.render(f'{CDN_LINK}<body class="bg-green-500"><p>x</p></body>')
    assert body.getpixel((640, 600)) == GREEN_500
    with pytest.raises(TypeError, match="html must be a str"):
        renderer.render(b"<html></html>")


def test_dialogs_and_popups_do_not_block(renderer):
    page = ("<body><script>alert('a'); confirm('b'); prompt('c'); window.open('http://example.com/');"
            " document.body.style.background = 'rgb(0, 0, 255)';</script></body>")
    before = renderer.replacements
    assert renderer.render(page).getpixel((5, 5)) == (0, 0, 255)
    assert renderer.replacements == before


def test_render_many_keeps_order(renderer):
    colours = [(255, 0, 0), (0, 128, 0), (0, 0, 255), (255, 255, 0), (128, 0, 128)]
    pages = [f'<body style="background:rgb{c}"></body>' for c in colours]
    imgs = renderer.render_many(pages)
    assert [im.getpixel((100, 100)) for im in imgs] == colours
    with pytest.raises(TypeError, match=r"htmls\[1\] must be a str"):
        renderer.render_many(["", None])


def test_config_validation():
    with pytest.raises(ValueError, match="pool_size must be an int >= 1"):
        RenderConfig(pool_size=0)
    with pytest.raises(ValueError, match="viewport must be"):
        RenderConfig(viewport=(1280,))
    with pytest.raises(ValueError, match="page_load_timeout_s must be a number > 0"):
        RenderConfig(page_load_timeout_s=0)
    with pytest.raises(ValueError, match="max_height must be an int >= viewport height 800"):
        RenderConfig(max_height=100)


# -- crashes, hangs, shutdown ------------------------------------------------------------------------
def test_killed_browser_is_replaced_and_page_retried():
    with Renderer(pool_size=2, page_load_timeout_s=10) as r:
        victims = r.browser_pids()
        assert len(victims) == 2
        before = {p.pid: p for p in _live(r.process_ids())}
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        imgs = r.render_many(['<body style="background:#f00"></body>', '<body style="background:#00f"></body>'])
        assert [im.getpixel((5, 5)) for im in imgs] == [(255, 0, 0), (0, 0, 255)]
        assert r.replacements == 2
        assert not set(victims) & set(r.browser_pids())
        # the killed drivers' whole process trees are gone
        assert _dead([p for pid, p in before.items() if pid not in r.process_ids()]) == []
        assert r.render('<body style="background:#0f0"></body>').getpixel((5, 5)) == (0, 255, 0)


def test_hung_page_times_out_then_renderer_works():
    with Renderer(pool_size=1, page_load_timeout_s=2) as r:
        t = time.monotonic()
        with pytest.raises(RenderTimeoutError, match=r"did not finish loading within 2 s on two fresh drivers"):
            r.render("<html><body><script>while (true) {}</script></body></html>")
        assert time.monotonic() - t < 30
        assert r.replacements == 2
        assert r.render('<body style="background:#00f"></body>').getpixel((5, 5)) == (0, 0, 255)
        out = r.render_many(["<script>while (true) {}</script>", '<body style="background:#f00"></body>'],
                            return_exceptions=True)
        assert isinstance(out[0], RenderTimeoutError) and out[1].getpixel((5, 5)) == (255, 0, 0)


def test_close_quits_every_process_and_removes_profiles():
    r = Renderer(pool_size=2)
    r.render("<p>x</p>")
    live = _live(r.process_ids())
    procs = list(live)
    assert sum(name == "chromedriver" for name in live.values()) == 2
    assert sum("chrom" in name for name in live.values()) > 4
    profiles = [b.user_data_dir for b in r._state.browsers]
    assert all(os.path.isdir(d) for d in profiles)
    r.close()
    assert _dead(procs) == []  # neither running nor zombie
    assert not any(os.path.exists(d) for d in profiles)
    with pytest.raises(RenderError, match="closed"):
        r.render("<p>x</p>")
    r.close()  # idempotent


def test_finalizer_quits_an_abandoned_renderer():
    r = Renderer(pool_size=1)
    procs = list(_live(r.process_ids()))
    profiles = [b.user_data_dir for b in r._state.browsers]
    assert procs and all(os.path.isdir(d) for d in profiles)
    del r
    gc.collect()
    assert _dead(procs) == []
    assert not any(os.path.exists(d) for d in profiles)  # only the renderer's finalizer removes them


def test_interpreter_exit_quits_drivers(tmp_path):
    script = tmp_path / "leave_open.py"
    script.write_text(textwrap.dedent("""\
        import threading, time
        from colbench_env.evaluation.render import Renderer
        r = Renderer(pool_size=2)
        r.render("<p>x</p>")
        # A daemon thread keeps the renderer reachable at exit, so no garbage collection (and no
        # selenium __del__) cleans up: only the renderer's atexit hook can quit the drivers.
        threading.Thread(target=lambda keep=r: time.sleep(1000), daemon=True).start()
        print(" ".join(map(str, r.process_ids())), flush=True)
        print("\\n".join(b.user_data_dir for b in r._state.browsers), flush=True)
        """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr
    first, *profiles = out.stdout.splitlines()
    pids = [int(p) for p in first.split()]
    assert len(pids) > 4 and len(profiles) == 2
    assert not any(os.path.exists(d) for d in profiles)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(psutil.pid_exists(p) and _is_chrome(p) for p in pids):
        time.sleep(0.05)
    assert not [p for p in pids if psutil.pid_exists(p) and _is_chrome(p)]


def test_close_not_graceful_kills_every_process_at_once():
    r = Renderer(pool_size=2)
    r.render("<p>x</p>")
    procs = list(_live(r.process_ids()))
    profiles = [b.user_data_dir for b in r._state.browsers]
    r.close(graceful=False)
    assert _dead(procs) == [] and not any(os.path.exists(d) for d in profiles)
    with pytest.raises(RenderError, match="closed"):
        r.render("<p>x</p>")


def test_sigkilled_process_takes_its_drivers_with_it(tmp_path):
    """A process killed with SIGKILL runs no clean-up; its chromedrivers and Chromium processes die
    anyway (the orphan guard), instead of being re-parented to init and left running, and the
    guard then deletes their profile folders (they were left in the temporary folder)."""
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent("""\
        import sys, time
        from colbench_env.evaluation import orphan_guard
        from colbench_env.evaluation.render import Renderer
        r = Renderer(pool_size=2)
        r.render("<p>x</p>")
        print(" ".join(map(str, r.process_ids())), flush=True)
        print(" ".join(b.user_data_dir for b in r._state.browsers), orphan_guard.guard_pid(), flush=True)
        time.sleep(300)
        """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        procs = list(_live([int(p) for p in proc.stdout.readline().split()]))
        *profiles, guard = proc.stdout.readline().split()
        guard = psutil.Process(int(guard))
        assert sum(n == "chromedriver" for n in (p.name() for p in procs)) == 2 and len(procs) > 4
        assert len(profiles) == 2 and all(os.path.isdir(d) for d in profiles)
        # Chromium's own temporary folders are inside the profiles, not in the system's
        for d in profiles:
            assert [f for f in os.listdir(os.path.join(d, "tmp")) if f.startswith("org.chromium.Chromium.")]
            assert os.readlink(os.path.join(d, "SingletonSocket")).startswith(os.path.join(d, "tmp") + os.sep)
    finally:
        proc.kill()
        proc.wait()
    assert _dead(procs, wait_s=15) == []
    assert _dead([guard], wait_s=15) == []  # the guard deletes the folders, then exits
    assert not [d for d in profiles if os.path.exists(d)]


def test_orphan_guard_kills_registered_trees_only_when_its_owner_dies(tmp_path):
    """The guard kills a registered process and its descendants once its owner is gone (SIGKILL);
    an unregistered process, and one unregistered after registering, are left alone."""
    script = tmp_path / "owner.py"
    script.write_text(textwrap.dedent("""\
        import subprocess, time
        from colbench_env.evaluation import orphan_guard
        tree = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"])
        free = subprocess.Popen(["sleep", "300"])
        forgotten = subprocess.Popen(["sleep", "300"])
        assert orphan_guard.register(tree.pid) and orphan_guard.register(forgotten.pid)
        orphan_guard.unregister(forgotten.pid)
        time.sleep(0.5)  # sh has started its two sleeps
        print(tree.pid, free.pid, forgotten.pid, orphan_guard.guard_pid(), flush=True)
        time.sleep(300)
        """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        tree, free, forgotten, guard = (int(x) for x in proc.stdout.readline().split())
        tree_procs = [psutil.Process(tree), *psutil.Process(tree).children(recursive=True)]
        others = [psutil.Process(free), psutil.Process(forgotten)]
        assert len(tree_procs) == 3 and psutil.Process(guard).is_running()
        time.sleep(1.0)
        assert _dead(tree_procs, wait_s=0) == tree_procs  # nothing is killed while the owner lives
    finally:
        proc.kill()
        proc.wait()
    try:
        assert _dead(tree_procs, wait_s=15) == []
        assert _dead([psutil.Process(guard)], wait_s=15) == []  # the guard exits after its work
        assert all(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in others)
    finally:
        for p in others:
            p.kill()


def _is_chrome(pid: int) -> bool:
    try:
        return "chrom" in psutil.Process(pid).name()
    except psutil.NoSuchProcess:
        return False


# -- command line ------------------------------------------------------------------------------------
def test_cli_render(tmp_path):
    page = tmp_path / "answer.txt"  # an agent answer: --extract takes the page out of it
    page.write_text(f'Here you go. I WANT TO ANSWER: <html><head>{CDN_LINK}</head><body class="bg-green-500 m-0">'
                    '<img style="display:block" src="https://picsum.photos/id/3/200/100"></body></html> Thanks!')
    out = tmp_path / "shot.png"
    res = subprocess.run([sys.executable, "-m", "colbench", "render", str(page), "--out", str(out),
                          "--extract", "--width", "1000", "--height", "600"],
                         capture_output=True, text=True, timeout=60, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"{out}: 1000x600"
    with Image.open(out) as im:
        im = im.convert("RGB")
        assert im.size == (1000, 600) and im.getpixel((640, 500)) == GREEN_500
        expect = Image.open(io.BytesIO(placeholder_png(200, 100))).convert("RGB")
        assert im.crop((0, 0, 200, 100)).tobytes() == expect.tobytes()
    res = subprocess.run([sys.executable, "-m", "colbench", "render", str(tmp_path / "nope.html"),
                          "--out", str(out)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert res.returncode == 2 and "no such file" in res.stderr
