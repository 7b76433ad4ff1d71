"""Fetch the Tailwind CSS 2.2.19 stylesheet that ColBench pages link, into the user cache.

Frontend rendering serves this file locally (see :mod:`.offline_assets`) so that pages render offline
exactly as with the CDN. It comes from the npm registry (``npm pack tailwindcss@2.2.19``, the file
``package/dist/tailwind.min.css``), is checked against :data:`TAILWIND_SHA256` and written atomically
to :func:`user_assets_dir`. The renderer fetches it on first use; ``colbench setup`` does it
explicitly. Light module: no PIL, no browser.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

__all__ = ["TAILWIND_SHA256", "user_assets_dir", "fetch_tailwind", "TailwindFetchError"]

TAILWIND_VERSION = "2.2.19"
TAILWIND_FILENAME = f"tailwind-{TAILWIND_VERSION}.min.css"
#: sha256 of ``dist/tailwind.min.css`` in the npm package tailwindcss@2.2.19
TAILWIND_SHA256 = "b6ad97402eddb903e7a5d7a73ee47a679204efbdda4521a391cbad9df509b932"


class TailwindFetchError(FileNotFoundError):
    """The stylesheet could not be fetched; the message says what to install or do."""


def user_assets_dir() -> Path:
    """``$COLBENCH_CACHE/assets``, else ``~/.cache/colbench/assets``."""
    root = os.environ.get("COLBENCH_CACHE")
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "colbench") / "assets"


def fetch_tailwind(dest_dir: str | os.PathLike | None = None, *, timeout_s: float = 300.0) -> Path:
    """Fetch the stylesheet into ``dest_dir`` (default :func:`user_assets_dir`); returns its path.

    An existing file with the right checksum is kept (no network).

    Raises:
        TailwindFetchError: npm is missing (the message says how to install it), ``npm pack`` failed
            (no network?), or the file's checksum is wrong.
    """
    dest = Path(dest_dir) if dest_dir is not None else user_assets_dir()
    target = dest / TAILWIND_FILENAME
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == TAILWIND_SHA256:
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise TailwindFetchError(
            f"npm not found: the frontend env needs Tailwind CSS {TAILWIND_VERSION}'s stylesheet, fetched from the "
            "npm registry with npm. Install npm (Debian/Ubuntu: 'sudo apt-get install npm'; macOS: "
            "'brew install node'; or https://nodejs.org), then run 'colbench setup'; or put "
            f"dist/tailwind.min.css of tailwindcss@{TAILWIND_VERSION} at {target}")
    with tempfile.TemporaryDirectory(prefix="colbench-tailwind-") as tmp:
        try:
            p = subprocess.run([npm, "pack", "--silent", f"tailwindcss@{TAILWIND_VERSION}"], cwd=tmp,
                               capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise TailwindFetchError(f"'npm pack tailwindcss@{TAILWIND_VERSION}' took over {timeout_s:.0f} s "
                                     "(no network?)") from None
        tgz = sorted(Path(tmp).glob("tailwindcss-*.tgz"))
        if p.returncode != 0 or not tgz:
            last = (p.stderr.strip().splitlines() or ["no output"])[-1]
            raise TailwindFetchError(f"'npm pack tailwindcss@{TAILWIND_VERSION}' failed (exit {p.returncode}: "
                                     f"{last}); is the npm registry reachable?")
        with tarfile.open(tgz[0]) as tf:
            member = tf.extractfile("package/dist/tailwind.min.css")
            data = member.read() if member is not None else b""
    digest = hashlib.sha256(data).hexdigest()
    if digest != TAILWIND_SHA256:
        raise TailwindFetchError(f"tailwindcss@{TAILWIND_VERSION} dist/tailwind.min.css has sha256 {digest}, "
                                 f"expected {TAILWIND_SHA256}")
    dest.mkdir(parents=True, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(prefix=f".{TAILWIND_FILENAME}.", dir=dest)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp_path, target)
    return target
