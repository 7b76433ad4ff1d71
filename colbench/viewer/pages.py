"""Frontend episodes' pages as images: the page the agent showed at each turn and the target, each
rendered by the scorer's renderer (:class:`colbench_env.evaluation.render.Renderer`: headless
Chromium, offline, the same viewport and page-height limit), the similarity of each agent page to
the target by the scorer's metric (``"visual"`` by default), and the screenshots shrunk to JPEG for
the page.

A page the agent showed at its last turn is the page the episode was scored on, so that turn's
similarity is the episode's reward when the run used the same metric. Identical pages (the same
HTML, e.g. one target for many episodes) are rendered once; a page kept in memory is dropped as
soon as no target still needs it.
"""
from __future__ import annotations

import base64
import hashlib
import io
import sys
from typing import Callable, Sequence

from .data import Run

__all__ = ["render_pages", "image_key", "THUMB_WIDTH", "THUMB_MAX_HEIGHT"]

#: width (pixels) of a page image in the report; a page is 1280 CSS pixels wide when rendered
THUMB_WIDTH = 640
#: tallest page image in the report (pixels, after shrinking); taller pages are cut at the bottom
THUMB_MAX_HEIGHT = 2000


def image_key(html: str) -> str:
    """The key of a page's image in the report (a hash of its HTML)."""
    return hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _thumbnail(img, quality: int) -> str:
    """A ``data:`` URL of ``img`` shrunk to :data:`THUMB_WIDTH` (JPEG)."""
    from PIL import Image

    w, h = img.size
    scale = THUMB_WIDTH / w
    small = img.resize((THUMB_WIDTH, max(1, round(h * scale))), Image.LANCZOS)
    if small.height > THUMB_MAX_HEIGHT:
        small = small.crop((0, 0, THUMB_WIDTH, THUMB_MAX_HEIGHT))
    buf = io.BytesIO()
    small.convert("RGB").save(buf, format="JPEG", quality=quality, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def render_pages(runs: Sequence[Run], *, similarity: str | Callable = "visual", pool_size: int = 2,
                 quality: int = 70, progress: bool = True, renderer=None) -> dict[str, str]:
    """Render every frontend episode's pages and targets; set each turn's ``image``/``similarity``
    and each episode's ``target_image`` (``render_error`` when a page failed). Returns the images,
    ``{key: data URL}``.

    Args:
        similarity: ``"visual"``, ``"clip"`` or a callable ``(img, img) -> float``
            (:func:`colbench_env.evaluation.similarity.make_similarity`).
        pool_size: Chromium drivers rendering in parallel.
        quality: JPEG quality of the page images.
        renderer: a :class:`~colbench_env.evaluation.render.Renderer` to use (default: one of
            ``pool_size`` drivers, closed at the end).
    """
    from tqdm import tqdm

    from colbench_env.evaluation.render import Renderer
    from colbench_env.evaluation.similarity import make_similarity

    episodes = [ep for run in runs for ep in run.episodes if ep.kind == "frontend"]
    if not episodes:
        return {}
    sim = similarity if callable(similarity) else make_similarity(similarity)
    targets: dict[str, str] = {}  # target key -> html
    pages: dict[str, str] = {}  # page key -> html
    need: dict[str, set[str]] = {}  # target key -> page keys compared with it
    for ep in episodes:
        t = str(ep.record["task"].get("ground_truth") or "")
        tk = image_key(t)
        targets[tk] = t
        ep.target_image = tk
        for turn in ep.turns:
            if turn.page:
                pk = image_key(turn.page)
                pages[pk] = turn.page
                turn.image = pk
                need.setdefault(tk, set()).add(pk)
    left = {pk: sum(pk in s for s in need.values()) for pk in pages}
    images: dict[str, str] = {}
    failed: dict[str, str] = {}
    scores: dict[tuple[str, str], float] = {}
    own = renderer is None
    r = renderer or Renderer(pool_size=pool_size)
    bar = tqdm(total=len(targets) + len(pages), desc="render", unit="page", file=sys.stderr, disable=not progress)
    try:
        full: dict[str, object] = {}
        for tk, target_html in targets.items():
            wanted = [pk for pk in sorted(need.get(tk, ())) if pk not in full and pk not in failed]
            shots = r.render_many([target_html] + [pages[pk] for pk in wanted], return_exceptions=True)
            bar.update(1 + sum(pk not in images for pk in wanted))
            target_img = shots[0]
            if isinstance(target_img, BaseException):
                failed[tk] = f"target page failed to render: {target_img}"
            else:
                images[tk] = _thumbnail(target_img, quality)
            for pk, img in zip(wanted, shots[1:]):
                if isinstance(img, BaseException):
                    failed[pk] = f"page failed to render: {img}"
                else:
                    full[pk] = img
                    images.setdefault(pk, _thumbnail(img, quality))
            for pk in need.get(tk, ()):
                if pk in full and tk not in failed:
                    scores[(pk, tk)] = float(sim(full[pk], target_img))
                left[pk] -= 1
                if left[pk] == 0:
                    full.pop(pk, None)
    finally:
        bar.close()
        if own:
            r.close()
    for ep in episodes:
        errors = [failed[k] for k in [ep.target_image, *(t.image for t in ep.turns if t.image)] if k in failed]
        ep.render_error = errors[0] if errors else None
        for turn in ep.turns:
            if turn.image:
                turn.similarity = scores.get((turn.image, ep.target_image))
    return images
