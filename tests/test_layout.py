"""The layout: which package may import which, the deprecated aliases of moved modules, and every
command the README and the docs' guides write still parsing (``--help`` exits 0), so that documented
commands cannot rot."""
from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from source_imports import imported_modules

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("colbench_env", "wrappers", "agents", "colbench", "benchmarks", "studies")


def _imports(path: Path) -> set[str]:
    return imported_modules(path, ROOT)


def _files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _top(name: str) -> str:
    return name.split(".")[0]


def test_each_layer_imports_only_the_layers_below_it():
    """colbench_env imports no other package of the project; wrappers only colbench_env; agents
    colbench_env and wrappers; colbench and benchmarks anything but the studies; nothing in the
    installed packages imports studies/ (it is not installed)."""
    allowed = {"colbench_env": {"colbench_env"}, "wrappers": {"colbench_env", "wrappers"},
               "agents": {"colbench_env", "wrappers", "agents"},
               "colbench": {"colbench_env", "wrappers", "agents", "colbench", "benchmarks"},
               "benchmarks": {"colbench_env", "wrappers", "agents", "colbench", "benchmarks"}}
    bad = []
    for package, ok in allowed.items():
        for path in _files(package):
            if package == "colbench_env" and "authoring" in path.parts:
                continue  # the task-authoring scripts are not installed either
            for name in _imports(path):
                if _top(name) in PACKAGES and _top(name) not in ok:
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_the_pipeline_package_has_no_import_circle():
    """colbench.pipeline's modules import each other in one direction only (at module level and
    inside functions alike): config <- stages <- resume <- run, stats <- analysis <- run."""
    graph = {}
    for path in _files("colbench/pipeline"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        graph[name] = {m for m in _imports(path) if m in {".".join(p.relative_to(ROOT).with_suffix("").parts)
                                                          for p in _files("colbench/pipeline")}}
    graph.pop("colbench.pipeline.__init__", None)
    for deps in graph.values():
        deps.discard("colbench.pipeline.__init__")

    def reaches(a, b, seen=()):
        return any(d == b or (d not in seen and reaches(d, b, (*seen, d))) for d in graph.get(a, ()))

    circles = [m for m in graph if reaches(m, m)]
    assert not circles, {m: sorted(graph[m]) for m in circles}
    assert graph["colbench.pipeline.config"] == set()  # the settings depend on nothing else of the pipeline
    assert "colbench.pipeline.run" not in set().union(*graph.values())  # nothing imports the top


#: deprecated alias -> (the module(s) its names now live in, names to compare)
ALIASES = {
    "benchmarks.pipeline": (("colbench.pipeline", "colbench.cli.pipeline"),
                            ["PipelineConfig", "PRESETS", "PAPER_SETTINGS", "run_pipeline", "trainer_config",
                             "paper_settings_table", "task_split", "check_resume", "add_arguments", "main"]),
    "benchmarks.pipeline_stats": (("colbench.pipeline.analysis",), ["analyse_runs", "method_grids", "CLUSTERS"]),
    "benchmarks.stats": (("colbench.pipeline.stats",), ["bootstrap_mean", "paired_bootstrap", "Interval",
                                                       "Comparison", "as_grid", "bootstrap_indices"]),
    "benchmarks.critic_analysis": (("colbench.critics.analysis", "colbench.cli.critic_analysis"),
                                   ["run", "ValueHeadCritic", "colour_data", "_tiny_llama", "add_arguments", "main"]),
    "benchmarks.critic_ranking": (("colbench.critics.ranking", "colbench.cli.critic_ranking"),
                                  ["RankingConfig", "run", "pairwise_ranking", "check_resume", "add_arguments", "main"]),
    "benchmarks.cli": (("colbench.cli",), ["main"]),
}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_deprecated_aliases_hold_the_moved_objects(alias):
    homes, names = ALIASES[alias]
    sys.modules.pop(alias, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module(alias)
    if alias != "benchmarks.cli":  # a module one imports from says it is deprecated; the command alias does not
        assert any(issubclass(w.category, DeprecationWarning) and alias in str(w.message) for w in caught), caught
    doc = " ".join(old.__doc__.split())
    assert "release after 0.1.0" in doc and "eprecated alias" in doc
    new = [importlib.import_module(h) for h in homes]
    for name in names:
        home = next(m for m in new if hasattr(m, name))
        assert getattr(old, name) is getattr(home, name), name
    if alias == "benchmarks.pipeline":  # the pipeline's own episode runner has a name of its own now
        assert old.run_episodes is importlib.import_module("colbench.pipeline").run_stage_episodes


@pytest.mark.parametrize("argv", [["benchmarks.cli", "pipeline", "--help"], ["benchmarks.pipeline_stats", "--help"],
                                  ["benchmarks.critic_ranking", "--help"], ["benchmarks.critic_analysis", "--help"]])
def test_old_command_lines_still_run(argv):
    p = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-2000:]
    command = {"benchmarks.cli": argv[1], "benchmarks.pipeline_stats": "pipeline-stats"}.get(
        argv[0], argv[0].split(".")[1].replace("_", "-"))
    assert p.stdout.startswith(f"usage: colbench {command} "), p.stdout[:200]


# ------------------------------------------------------------------------------- README commands
def _command_lines(markdown: str) -> list[str]:
    """The command lines a Markdown text writes: each line of a fenced or indented code block
    (continuation lines joined, comments dropped) and each inline code span, that starts -- after
    ``VAR=value`` settings and ``/usr/bin/time -v`` -- with ``colbench `` or ``python -m ``."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", markdown, flags=re.S)
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    blocks += re.findall(r"(?:^|\n\n)((?:(?: {4}|\t).*(?:\n|$))+)", prose)
    lines = [" ".join(ln.split(" #")[0].split()) for block in blocks for ln in block.replace("\\\n", " ").splitlines()]
    lines += re.findall(r"`([^`\n]+)`", prose)
    out = []
    for ln in lines:
        ln = re.sub(r"^(?:[A-Z_]+=\S+\s+)*(?:/usr/bin/time -v\s+)?", "", ln)
        words = ln.split()
        if ln.startswith("colbench ") and re.fullmatch(r"[a-z][a-z-]*|--?[a-z-]+", words[1]):
            out.append(ln)
        elif ln.startswith("python -m ") and re.fullmatch(r"[A-Za-z_][\w.]*", words[2]):
            out.append(ln)
    return out


def _help_argv(line: str) -> list[str]:
    """The command of ``line`` with ``--help`` instead of its arguments: ``colbench CMD --help``
    (``colbench --version`` as it is), ``python -m MODULE --help``."""
    words = line.split()
    if words[0] == "colbench":
        if words[1] == "--version":
            return ["colbench", "--version"]
        return ["colbench", "--help"] if words[1].startswith("-") else ["colbench", words[1], "--help"]
    return ["python", "-m", words[2], "--help"]


def test_the_readme_command_parser_finds_what_it_should():
    text = ("```bash\ncolbench run --agent scripted \\\n    --out x.jsonl   # a comment\nmake test\n```\n"
            "Run `python -m studies.offline_human.measure --json` or `colbench --version`; not `python -c 'x'`,\n"
            "`colbench run: error: ...` or `python -m studies.<study>.<script>`. Indented:\n\n"
            "    OMP_WAIT_POLICY=PASSIVE /usr/bin/time -v colbench pipeline --small \\\n        --seeds 0 1\n")
    assert _command_lines(text) == ["colbench run --agent scripted --out x.jsonl",
                                    "colbench pipeline --small --seeds 0 1",
                                    "python -m studies.offline_human.measure --json", "colbench --version"]
    assert [_help_argv(c) for c in _command_lines(text)] == [
        ["colbench", "run", "--help"], ["colbench", "pipeline", "--help"],
        ["python", "-m", "studies.offline_human.measure", "--help"], ["colbench", "--version"]]


#: the Markdown a user reads for commands: the README and the docs' guides (the CLI reference in the
#: site is generated from the parsers themselves)
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guides").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def test_every_readme_command_parses():
    """Each command README.md and the guides write (``colbench ...``, ``python -m ...``) exits 0 with
    ``--help``: the command, or module, exists and parses its options."""
    from colbench.cli import COMMANDS

    commands = sorted({tuple(_help_argv(c)) for md in DOCS for c in _command_lines(md.read_text())})
    assert {argv[1] for argv in commands if argv[0] == "colbench"} >= set(COMMANDS), commands  # each is shown
    failed = []
    for argv in commands:
        cmd = [sys.executable, "-m", "colbench", *argv[1:]] if argv[0] == "colbench" else [sys.executable, *argv[1:]]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
        if p.returncode != 0:
            failed.append((" ".join(argv), p.stderr[-500:]))
    assert not failed, failed


def test_every_study_readme_names_commands_that_exist():
    """The commands written in studies/**/*.md name a ``colbench`` command or an importable module
    (the study scripts read their own arguments, so only their names are checked here)."""
    from colbench.cli import COMMANDS

    bad = []
    for md in sorted((ROOT / "studies").rglob("*.md")):
        for line in _command_lines(md.read_text()):
            argv = _help_argv(line)
            if argv[0] == "colbench":
                ok = argv[1] in COMMANDS or argv[1] in ("--help", "--version")
            else:
                ok = importlib.util.find_spec(argv[2]) is not None
            if not ok:
                bad.append(f"{md.relative_to(ROOT)}: {line}")
    assert not bad, bad


def test_markdown_links_resolve():
    """Every relative link and image of the committed Markdown (README, the guides, benchmarks,
    studies) points to a file in the repository (the site's own check: tests/test_docs.py)."""
    bad = []
    for md in [*DOCS, *sorted((ROOT / "studies").rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", md.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (md.parent / target.split("#")[0]).exists():
                bad.append(f"{md.relative_to(ROOT)}: {target}")
    assert not bad, bad
