"""A picture grid of a frontend pipeline run: target | zero-shot | each method, for a few held-out tasks.

::

    python -m studies.frontend_small.grid OUT_DIR [--seed N] [--tasks 6] [--out grid.png]

``OUT_DIR`` is a ``colbench pipeline --env ColBench-Frontend-v0`` output directory: one run (it holds
``eval/``) or several seeds (it holds ``seed-<N>/eval/``; ``--seed`` picks one, by default the lowest).
The grid shows what a similarity means: one row per task, the target page, then the final page of
zero-shot's greedy evaluation episode (``eval/zero-shot.jsonl``) and of each trained method's
(``eval/<method>.jsonl``, :data:`colbench.pipeline.config.METHODS` order, every method whose file is
there; ``--methods`` names them instead).

Which tasks: the held-out tasks of zero-shot's file sorted by zero-shot's similarity (then task id),
and of the ``n`` = ``--tasks`` of them the ones at evenly spaced ranks, the lowest and the highest
included (rank ``round(i * (N - 1) / (n - 1))``, i = 0..n-1): the rows go from zero-shot's worst page to
its best, spread over its quantiles. Fewer tasks than ``n``: all of them.

Each cell (:func:`cell_image`): the page rendered by the scorer's renderer
(:class:`colbench_env.evaluation.render.Renderer`, its defaults as in evaluation: 1280 CSS pixels wide,
full page up to 4000 pixels) and shrunk to :data:`CELL_WIDTH` pixels wide (Lanczos, aspect kept), cut
at :data:`CELL_MAX_HEIGHT`. The page of an episode is ``extract_html`` of its recorded ``answer``, as the
scorer reads it; an episode with no page (similarity 0 by rule) gets a grey cell saying so. Under each
cell: the method and its similarity, the episode's recorded ``reward``; a method's frame is green where it
beats zero-shot on that task, red where it is below, dark grey for a tie (exact equality, the rule of
:func:`colbench_env.evaluation.trajectory_scoring.win_rate`).

The images are rendered again here, so with the run's metric ``"visual"`` (its ``config.json``) each
page's similarity to its target is recomputed from these renders and written beside the recorded one
(``rendered_similarity`` in the layout); a difference above 0.01 is said on stderr (the picture would
not be what was scored). ``"clip"`` runs are not recomputed (no model is loaded).

Writes ``--out`` (PNG; default ``<run dir>/grid.png``) and, beside it, the layout (``.json``, the same
stem: the chosen tasks, each cell's method, similarity, outcome and pixel box; :class:`Grid`). A bad
out-dir (no evaluation files, a record that is not a trajectory, a method with no finished episode of
a chosen task) is one line ``grid: error: ...`` naming the file, exit 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["Cell", "Grid", "CELL_WIDTH", "CELL_MAX_HEIGHT", "choose_tasks", "cell_image", "load_run", "build_grid",
           "main"]

#: width of a cell's page image in pixels (pages are rendered 1280 CSS pixels wide: a fifth)
CELL_WIDTH = 256
#: tallest cell page image in pixels after shrinking (the top 2000 pixels of a page); the rest is cut
CELL_MAX_HEIGHT = 400
CAPTION_HEIGHT = 22
GAP = 10
FRAME = 3
TITLE_HEIGHT = 30
#: frame colours: a method against zero-shot on the task; ``None``: the target and zero-shot (a thin light frame)
COLOURS = {"win": (46, 160, 67), "loss": (207, 34, 46), "tie": (90, 90, 90), None: (225, 225, 225)}
NO_PAGE = "no page: similarity 0"


@dataclass
class Cell:
    """One picture of the grid: ``method`` (``"target"`` for the target page), its recorded
    similarity (``None`` for the target), ``outcome`` against zero-shot on this task (``"win"``,
    ``"loss"``, ``"tie"``; ``None`` for the target and zero-shot), the page image's box in the PNG
    ``(left, top, right, bottom)``, the page's similarity to the target recomputed from this grid's
    renders (``None`` when not recomputed), and ``has_page`` (False: the episode showed no page)."""

    method: str
    similarity: float | None
    outcome: str | None
    box: tuple[int, int, int, int]
    has_page: bool = True
    rendered_similarity: float | None = None
    caption: str = ""


@dataclass
class Grid:
    """What :func:`build_grid` drew: the run directory, the columns, and per row a task id and its cells."""

    run_dir: str
    columns: list[str]
    tasks: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    size: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict:
        return asdict(self)


def _error(message: str, code: int = 2) -> int:
    """One line on stderr; exit status 2 (bad input) unless ``code`` says otherwise."""
    print(f"grid: error: {message}", file=sys.stderr)
    return code


def run_directory(out_dir: Path, seed: int | None) -> Path:
    """The run whose evaluation files are read: ``out_dir`` itself when it holds ``eval/`` (``seed``
    then must be None), else ``out_dir/seed-<seed>`` (default: the lowest seed there).
    A :class:`~colbench_env.errors.UsageError` when there is none."""
    from colbench_env.errors import UsageError

    if not out_dir.is_dir():
        raise UsageError(f"{out_dir}: no such directory")
    if (out_dir / "eval").is_dir():
        if seed is not None:
            raise UsageError(f"{out_dir}: one run (it holds eval/), not seed-<N>/ folders: drop --seed {seed}")
        return out_dir
    seeds = sorted(int(p.name[5:]) for p in out_dir.glob("seed-*") if p.name[5:].isdigit() and (p / "eval").is_dir())
    if not seeds:
        raise UsageError(f"{out_dir}: no eval/ and no seed-<N>/eval/: not a pipeline output directory")
    if seed is None:
        seed = seeds[0]
    if seed not in seeds:
        raise UsageError(f"{out_dir}: no seed-{seed}/eval/ (seeds there: {', '.join(map(str, seeds))})")
    return out_dir / f"seed-{seed}"


def _episodes(path: Path) -> dict[str, dict]:
    """``{task_id: record}``: the latest finished record of each episode of an evaluation file (one
    greedy episode per task; records that ended with an ``error`` are not finished)."""
    from colbench_env.errors import UsageError
    from colbench_env.trajectories import read_trajectories
    from colbench.wrappers.recorder import latest_records

    out: dict[str, dict] = {}
    for rec in latest_records(read_trajectories(path, tolerate_partial_last_line=True)).values():
        if rec.get("error"):
            continue
        task_id = str(rec.get("task_id") or rec["task"].get("task_id") or "")
        if not task_id:
            raise UsageError(f"{path}: episode {rec['episode_id']} has no task_id")
        if not isinstance(rec.get("reward"), (int, float)):
            raise UsageError(f"{path}: episode {rec['episode_id']} (task {task_id}) has no reward")
        out[task_id] = rec
    return out


def load_run(run_dir: Path, methods: list[str] | None = None) -> dict[str, dict[str, dict]]:
    """``{method: {task_id: record}}`` for zero-shot and ``methods`` (default: every trained method
    with an evaluation file), from ``run_dir/eval/<method>.jsonl``."""
    from colbench.pipeline.config import METHODS
    from colbench_env.errors import UsageError

    eval_dir = run_dir / "eval"
    if methods is None:
        methods = [m for m in METHODS if (eval_dir / f"{m}.jsonl").is_file()]
    out = {}
    for m in ["zero-shot", *methods]:
        path = eval_dir / f"{m}.jsonl"
        if not path.is_file():
            raise UsageError(f"{path}: no such evaluation file")
        out[m] = _episodes(path)
    if not out["zero-shot"]:
        raise UsageError(f"{eval_dir / 'zero-shot.jsonl'}: no finished episode")
    return out


def choose_tasks(zero_shot: dict[str, dict], n: int) -> list[str]:
    """The ``n`` task ids at evenly spaced ranks of zero-shot's similarity (module docstring)."""
    ranked = sorted(zero_shot, key=lambda t: (float(zero_shot[t]["reward"]), t))
    if n >= len(ranked):
        return ranked
    if n == 1:
        return [ranked[len(ranked) // 2]]
    return [ranked[round(i * (len(ranked) - 1) / (n - 1))] for i in range(n)]


def cell_image(img):
    """A rendered page as a cell shows it: :data:`CELL_WIDTH` wide (Lanczos, aspect kept), the top
    :data:`CELL_MAX_HEIGHT` pixels."""
    from PIL import Image

    w, h = img.size
    small = img.convert("RGB").resize((CELL_WIDTH, max(1, round(h * CELL_WIDTH / w))), Image.LANCZOS)
    return small.crop((0, 0, CELL_WIDTH, min(small.height, CELL_MAX_HEIGHT)))


def _outcome(value: float, zero_shot: float) -> str:
    return "win" if value > zero_shot else "loss" if value < zero_shot else "tie"


def _similarity_metric(run_dir: Path) -> str:
    """The run's similarity metric (its ``config.json``, else its parent's; ``"visual"`` by default)."""
    for cfg in (run_dir / "config.json", run_dir.parent / "config.json"):
        if cfg.is_file():
            try:
                return str(json.loads(cfg.read_text()).get("similarity") or "visual")
            except (ValueError, AttributeError):
                break
    return "visual"


def build_grid(run_dir: Path, n_tasks: int = 6, methods: list[str] | None = None, renderer=None):
    """Read the run, choose the tasks, render the pages and compose the grid: ``(PIL.Image, Grid)``.
    Raises :class:`~colbench_env.errors.UsageError` for a bad run directory before rendering anything."""
    from PIL import Image, ImageDraw, ImageFont

    from colbench_env.errors import UsageError
    from colbench_env.evaluation.render import Renderer
    from colbench_env.protocol import extract_html

    runs = load_run(run_dir, methods)
    tasks = choose_tasks(runs["zero-shot"], n_tasks)
    for m, recs in runs.items():
        missing = [t for t in tasks if t not in recs]
        if missing:
            raise UsageError(f"{run_dir / 'eval' / (m + '.jsonl')}: no finished episode of task(s) {', '.join(missing)}")
    columns = ["target", *runs]
    targets = [str(runs["zero-shot"][t]["task"]["ground_truth"]) for t in tasks]
    pages = [[extract_html(runs[m][t].get("answer")) for m in runs] for t in tasks]
    htmls = sorted({*targets, *(p for row in pages for p in row if p)})
    own = renderer is None
    r = renderer or Renderer(pool_size=2)
    try:
        shots = dict(zip(htmls, r.render_many(htmls)))
    finally:
        if own:
            r.close()
    sim = None
    if _similarity_metric(run_dir) == "visual":
        from colbench_env.evaluation.similarity import make_similarity

        sim = make_similarity("visual")
    font = ImageFont.load_default(size=14)
    grid = Grid(run_dir=str(run_dir), columns=columns, tasks=tasks)
    cells_img: list[list] = []
    for t, target, row_pages in zip(tasks, targets, pages):
        zs = float(runs["zero-shot"][t]["reward"])
        row, imgs = [Cell("target", None, None, (0, 0, 0, 0), caption=f"target: {t}")], [cell_image(shots[target])]
        for m, page in zip(runs, row_pages):
            value = float(runs[m][t]["reward"])
            outcome = None if m == "zero-shot" else _outcome(value, zs)
            cell = Cell(m, value, outcome, (0, 0, 0, 0), has_page=bool(page),
                        caption=f"{m}: {value:.3f}" + (f" ({outcome})" if outcome else ""))
            if page and sim is not None:
                cell.rendered_similarity = float(sim(shots[page], shots[target]))
                if abs(cell.rendered_similarity - value) > 0.01:
                    print(f"grid: warning: {m} on {t}: similarity recorded {value:.4f}, of this render "
                          f"{cell.rendered_similarity:.4f}", file=sys.stderr)
            row.append(cell)
            imgs.append(cell_image(shots[page]) if page else None)
        grid.rows.append(row)
        cells_img.append(imgs)
    pitch = CELL_WIDTH + 2 * FRAME + GAP
    width = GAP + pitch * len(columns)
    heights = [max([CELL_MAX_HEIGHT // 4] + [im.height for im in imgs if im is not None]) for imgs in cells_img]
    height = TITLE_HEIGHT + sum(h + 2 * FRAME + CAPTION_HEIGHT + GAP for h in heights) + GAP
    canvas = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    draw.text((GAP, 8), f"{run_dir}: target | " + " | ".join(columns[1:]) + " -- similarity to the target; frame: "
              "green above zero-shot on the task, red below, dark grey tie", fill="black", font=font)
    y = TITLE_HEIGHT
    for row, imgs, h in zip(grid.rows, cells_img, heights):
        for k, (cell, im) in enumerate(zip(row, imgs)):
            x = GAP + k * pitch
            draw.rectangle((x, y, x + CELL_WIDTH + 2 * FRAME - 1, y + h + 2 * FRAME - 1), fill=COLOURS[cell.outcome])
            left, top = x + FRAME, y + FRAME
            draw.rectangle((left, top, left + CELL_WIDTH - 1, top + h - 1), fill="white")  # below a short page
            if im is None:
                draw.rectangle((left, top, left + CELL_WIDTH - 1, top + h - 1), fill=(200, 200, 200))
                draw.text((left + 8, top + 8), NO_PAGE, fill="black", font=font)
                cell.box = (left, top, left + CELL_WIDTH, top + h)
            else:
                canvas.paste(im, (left, top))
                cell.box = (left, top, left + im.width, top + im.height)
            draw.text((x, y + h + 2 * FRAME + 3), cell.caption, fill="black", font=font)
        y += h + 2 * FRAME + CAPTION_HEIGHT + GAP
    grid.size = canvas.size
    return canvas, grid


def main(argv: list[str] | None = None) -> int:
    from colbench.pipeline.config import METHODS
    from colbench_env.errors import UsageError
    from colbench_env.evaluation.offline_assets import AssetsMissingError
    from colbench_env.evaluation.render import BrowserNotFoundError, RenderError
    from colbench_env.trajectories import TrajectoryFormatError

    p = argparse.ArgumentParser(prog="python -m studies.frontend_small.grid", description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", type=Path, help="a colbench pipeline --env ColBench-Frontend-v0 output directory")
    p.add_argument("--seed", type=int, default=None, help="which seed-<N>/ of a multi-seed directory (default: lowest)")
    p.add_argument("--tasks", type=int, default=6, help="rows: held-out tasks spread over zero-shot's similarity")
    p.add_argument("--methods", nargs="+", choices=list(METHODS), default=None,
                   help="trained methods' columns (default: every one with an evaluation file)")
    p.add_argument("--out", type=Path, default=None, help="PNG to write (default: <run dir>/grid.png); "
                   "the layout goes beside it as .json")
    a = p.parse_args(argv)
    if a.tasks < 1:
        return _error(f"--tasks must be >= 1, got {a.tasks}")
    if a.out is not None and a.out.suffix.lower() != ".png":
        return _error(f"--out must be a .png file, got {a.out}")
    try:
        run_dir = run_directory(a.out_dir, a.seed)
        image, grid = build_grid(run_dir, a.tasks, a.methods)
    except (UsageError, TrajectoryFormatError) as e:
        return _error(str(e))
    except (BrowserNotFoundError, AssetsMissingError, RenderError) as e:
        return _error(str(e), 1)
    out = a.out or run_dir / "grid.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out)
    out.with_suffix(".json").write_text(json.dumps(grid.to_dict(), indent=1) + "\n")
    print(f"{out}: {len(grid.tasks)} tasks x {len(grid.columns)} columns ({', '.join(grid.columns)}), "
          f"{image.width}x{image.height}; layout in {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
