"""Fixtures shared by several test modules (pytest finds them here; test modules never import each
other), and the suite's cost lanes.

## Cost lanes

``make test`` runs every test. ``make test-fast`` (``pytest --fast``) runs the tests in no cost lane:
the suite minus what needs a browser, many sandboxed scorings, several processes, a model server,
the real SmolLM2 or a study's files; it must stay a few minutes on two cores and still import every
library module (checked at its end: :func:`_check_fast_lane_imports`). The lanes (:data:`LANES`) are
pytest markers, registered here. A test is in a lane when

* it is marked with it: ``@pytest.mark.slow`` on the test, or ``pytestmark = pytest.mark.browser``
  for a whole file -- how a new test declares its cost;
* it uses a fixture that brings the cost (:data:`LANE_FIXTURES`: a fixture of that name, wherever it
  is defined);
* its file or its test is listed in :data:`LANE_TESTS` (the suite's existing tests, kept in one
  table so that their costs can be read and changed together).

``pytest -m "not slow"``, ``-m browser`` ... select by lane as usual; ``--fast`` is ``-m`` with every
lane excluded. docs/guides/testing.md says the same for contributors.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from samples import BAD, GOOD, MID

#: lane -> what puts a test in it (the marker's description)
LANES = {
    "browser": "starts headless Chromium (renders pages; the frontend env's scoring)",
    "sandbox": "scores many answers in the sandboxed evaluator (a process per answer, time and memory limits)",
    "distributed": "launches several processes of a training (accelerate launch, torchrun)",
    "served": "starts a model server (transformers serve) and runs a policy behind it",
    "slow": "loads the real SmolLM2, or trains, builds or installs for tens of seconds",
    "study": "recomputes a study's committed results (studies/)",
}

#: fixture name -> the lane of every test that uses it (defined in any test file or here)
LANE_FIXTURES: dict[str, str] = {}

#: ``file`` (every test in it) or ``file::test`` (every parametrisation of that test function) -> lanes.
#: Costs measured one file at a time, one thread (tests/conftest.py's module docstring; the figures
#: behind each entry are in the commit that made it).
LANE_TESTS: dict[str, tuple[str, ...]] = {}

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="only the tests in no cost lane (make test-fast), then check that they imported "
                          "every library module")


def pytest_configure(config):
    """Registers the lanes as markers. Under pytest-xdist (``make test`` runs ``-n 2``), each worker
    and every process it starts (the ``colbench`` commands, ``accelerate launch``, servers) computes on
    one thread: two workers already fill two cores, and two OpenMP threads per process on busy cores
    spin in each other's way. Set before torch is imported (a worker imports the test modules after
    this); a value already in the environment wins. A plain ``pytest`` run is left as it is."""
    for lane, what in LANES.items():
        config.addinivalue_line("markers", f"{lane}: {what} (a cost lane: left out of make test-fast)")
    if hasattr(config, "workerinput"):
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    config._lanes_imported = set()


def lanes_of(item) -> set[str]:
    """The cost lanes of a collected test (see the module docstring)."""
    lanes = {m.name for m in item.iter_markers() if m.name in LANES}
    lanes |= {LANE_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in LANE_FIXTURES}
    path = Path(str(item.path)).resolve().relative_to(ROOT / "tests").as_posix()
    function = getattr(item, "originalname", None) or item.name.split("[")[0]
    for key in (path, f"{path}::{function}"):
        lanes.update(LANE_TESTS.get(key, ()))
    return lanes


def pytest_collection_modifyitems(config, items):
    """Puts each test in its lanes (markers), and with ``--fast`` leaves out every test in a lane."""
    fast, kept = config.getoption("--fast"), []
    for item in items:
        lanes = lanes_of(item)
        for lane in sorted(lanes):
            item.add_marker(getattr(pytest.mark, lane))
        if not (fast and lanes):
            kept.append(item)
    if fast and len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


# -------------------------------------------------------------- the fast lane imports every module
#: library modules no fast test needs to import, and why
NOT_IMPORTED = {
    "colbench.integrations.verifiers": "needs verifiers 0.3.1, installed in a venv of its own (make test runs it there)",
}


def library_modules() -> set[str]:
    """Every importable module of the installed packages (colbench, colbench_env and the folders
    installed as colbench.agents, colbench.wrappers, colbench.benchmarks), ``__main__`` modules and
    the task-authoring sources left out."""
    import tomllib

    folders = {"colbench": "colbench", "colbench_env": "colbench_env"}
    folders.update({folder: name for name, folder in tomllib.loads((ROOT / "pyproject.toml").read_text())
                    ["tool"]["setuptools"]["package-dir"].items()})
    out = set()
    for folder, name in folders.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if "__pycache__" in parts or "authoring" in parts or parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts.pop()
            out.add(".".join([name, *parts]))
    return out


def _imported_library_modules() -> set[str]:
    return {m for m, mod in list(sys.modules.items()) if mod is not None and m.split(".")[0] in ("colbench", "colbench_env")}


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: hand its imports to the controller
        config.workeroutput["imported_library_modules"] = sorted(_imported_library_modules())
        return
    if config.getoption("--fast") and exitstatus == 0 and not config.getoption("collectonly"):
        _check_fast_lane_imports(session, config._lanes_imported | _imported_library_modules())


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: absent where xdist is not installed
def pytest_testnodedown(node, error):  # (the controller) a worker's imports
    node.config._lanes_imported.update(getattr(node, "workeroutput", {}).get("imported_library_modules", ()))


def _check_fast_lane_imports(session, imported: set[str]) -> None:
    """The fast lane must import every library module (:func:`library_modules` but
    :data:`NOT_IMPORTED`); a module none of its tests imports fails the run, named."""
    missing = sorted(library_modules() - imported - set(NOT_IMPORTED))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if missing:
        if reporter is not None:
            reporter.write_line(f"make test-fast: no fast test imports {len(missing)} library module(s): "
                                + ", ".join(missing) + " -- add a fast test that uses each", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif reporter is not None:
        reporter.write_line(f"make test-fast: the fast lane imported all {len(library_modules() - set(NOT_IMPORTED))} "
                            "library modules")


# ------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def tok():
    """SmolLM2's tokenizer (converted locally; no hub access)."""
    import torch
    from tiny_models import smollm2_tokenizer

    torch.set_num_threads(1)
    return smollm2_tokenizer()


@pytest.fixture(scope="session")
def tiny_model_dir(tok, tmp_path_factory):
    """``tiny_model_dir(seed=0, hidden_size=32)``: the path of a saved tiny random Llama with SmolLM2's
    tokenizer (:func:`tiny_models.save_tiny_llama`), made once per session and settings: the one
    model directory the trainers, the pipeline and the launches load. Read-only: a test that changes
    a model copies it first."""
    from tiny_models import save_tiny_llama

    made: dict[tuple[int, int], str] = {}

    def get(seed: int = 0, hidden_size: int = 32) -> str:
        if (seed, hidden_size) not in made:
            made[seed, hidden_size] = save_tiny_llama(tmp_path_factory.mktemp(f"tiny-{seed}-{hidden_size}"), tok,
                                                      seed, hidden_size)
        return made[seed, hidden_size]

    return get


@pytest.fixture(scope="session")
def model_dir(tiny_model_dir):
    """The trainer tests' tiny model: :func:`tiny_model_dir` at seed 0, hidden size 64."""
    return tiny_model_dir(0, 64)


@pytest.fixture
def scored_trajectories():
    """``[GOOD, BAD, MID]`` of :mod:`samples`: rewards 1.0, 0.0, 0.3 on the same toy task."""
    return [GOOD, BAD, MID]


def docs_blocks() -> dict[str, tuple[str, str]]:
    """Every block a test runs: ``name -> (file, code)`` for each ``<!-- docs-test: name -->`` in
    README.md and the guides (``docs/guides/*.md``), the code being the first fenced block after it."""
    import re

    root = ROOT
    out: dict[str, tuple[str, str]] = {}
    for md in [root / "README.md", *sorted((root / "docs" / "guides").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in re.finditer(r"<!-- docs-test: ([\w-]+) -->", text):
            assert m.group(1) not in out, f"two blocks named {m.group(1)!r}: {out[m.group(1)][0]} and {md}"
            body = text[m.end():].split("```", 1)[1].split("\n", 1)[1]
            out[m.group(1)] = (str(md.relative_to(root)), body[:re.search(r"^```[ \t]*$", body, re.M).start()])
    return out


@pytest.fixture(scope="session")
def docs_block():
    """``docs_block(name)``: the code of the fenced block after ``<!-- docs-test: name -->`` in
    README.md or a guide (the lines a user copies, which a test then runs)."""
    blocks = docs_blocks()

    def block(name: str) -> str:
        assert name in blocks, f"no <!-- docs-test: {name} --> in README.md or docs/guides/"
        return blocks[name][1]

    return block
