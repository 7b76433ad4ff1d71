"""The layout: which package and sub-package may import which (layers, no import circle), and every
command the README and the docs' guides write still parsing (``--help`` exits 0), so that documented
commands cannot rot."""
from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from source_imports import imported_modules

ROOT = Path(__file__).resolve().parents[1]
#: folder -> the package it is installed as (pyproject.toml's package-dir: agents/ is colbench.agents)
PACKAGE_DIR = {folder: name for name, folder in
               tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].items()}
#: repository folder -> the import name of its package (the installed packages, then the studies)
FOLDERS = {"colbench_env": "colbench_env", "colbench": "colbench", **PACKAGE_DIR, "studies": "studies"}
INSTALLED = ("colbench_env", "colbench", *PACKAGE_DIR)

#: The installed code's units (a top-level package, a sub-package of colbench or a module directly in
#: colbench), bottom to top: a unit imports only units of earlier rows (and itself); units of one row
#: are independent of each other. ``__main__`` modules stand outside: they may import anything and
#: nothing imports them. colbench.cli is the top: nothing else imports it.
LAYERS = [
    ("colbench_env",),
    ("colbench.wrappers",),
    ("colbench.agents",),
    ("colbench",),  # the package itself: __version__, configs_dir (it imports nothing)
    ("colbench.errors", "colbench.stats", "colbench.report", "colbench.resume", "colbench.budgets"),
    ("colbench.plugins", "colbench.provenance", "colbench.extras", "colbench.comparison", "colbench.audit"),
    ("colbench.runs",),  # episodes into a resumed trajectory file (colbench run's service)
    ("colbench.table", "colbench.viewer", "colbench.integrations", "colbench.critics"),
    ("colbench.pipeline",),
    ("colbench.benchmarks",),
    ("colbench.cli",),
]
RANK = {unit: i for i, row in enumerate(LAYERS) for unit in row}
#: The one import against the layers, and why: ``colbench`` is verifiers' plug-in id (verifiers' loader
#: imports the module the id names, and ``colbench`` and ``colbench_env`` are the only top-level names),
#: so the package exports the verifiers classes, imported by its module ``__getattr__`` only when one of
#: them is asked for, i.e. after ``colbench`` itself is imported: no import-time circle, and ``import
#: colbench`` imports nothing (tests/test_integration_verifiers.py). Checked below to stay that narrow.
ON_DEMAND = {"colbench": {"colbench.integrations", "colbench.integrations.verifiers"}}


def _imports(path: Path) -> set[str]:
    return imported_modules(path, ROOT, FOLDERS)


def _modules(folders=tuple(FOLDERS)) -> dict[str, Path]:
    """Import name -> file of every module under ``folders`` (a package is its ``__init__``), the
    task-authoring scripts left out (not installed)."""
    out = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts or "authoring" in path.parts:
                continue
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([FOLDERS[folder], *parts])] = path
    return out


def _name(imported: str, modules: dict) -> str | None:
    """The project module an import names (``from m import f`` names ``m.f``: its longest prefix that
    is a module), or None for anything outside the project. Imports written with the folder's name
    (``agents.x``, meaning ``colbench.agents.x``) count as the module they mean, so they are checked too."""
    top, _, rest = imported.partition(".")
    if top in FOLDERS and FOLDERS[top] != top:
        imported = FOLDERS[top] + ("." + rest if rest else "")
    while imported and imported not in modules:
        imported = imported.rpartition(".")[0]
    return imported or None


def _graph(folders=tuple(FOLDERS)) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at module level and inside functions alike."""
    modules = _modules(folders)
    return {m: {d for d in (_name(n, modules) for n in _imports(p)) if d and d != m} - ON_DEMAND.get(m, set())
            for m, p in modules.items()}


def _entry_point(module: str) -> bool:
    return module.rpartition(".")[2] == "__main__"


def _unit(module: str) -> str:
    """A module's unit in :data:`LAYERS`: colbench's sub-package or module (``colbench.pipeline``,
    ``colbench.runs``, ``colbench.agents``), the top-level package otherwise (``colbench_env``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "colbench" else parts[0]


def test_each_layer_imports_only_the_layers_below_it():
    """Every installed module belongs to a unit of :data:`LAYERS` and imports only units of lower rows
    (its own unit aside); nothing imports colbench.cli but the ``__main__`` modules; nothing installed
    imports the studies (they are not installed)."""
    graph = _graph(INSTALLED)
    unplaced = sorted({_unit(m) for m in graph if not _entry_point(m)} - set(RANK))
    assert not unplaced, f"place these in LAYERS: {unplaced}"
    bad = []
    for module, deps in graph.items():
        for dep in deps:
            a, b = _unit(module), _unit(dep)
            if _entry_point(dep) or (not _entry_point(module) and a != b and RANK[b] >= RANK[a]):
                bad.append(f"{module} imports {dep}")
    assert not bad, bad
    studies = [f"{p.relative_to(ROOT)} imports {n}" for p in _modules(INSTALLED).values() for n in _imports(p)
               if n.split(".")[0] == "studies"]
    assert not studies, studies


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (a path that ends where it starts), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (found := visit(w)):
                return found
        state[v] = 2
        path.pop()
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_the_circle_finder_finds_circles():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle_between_modules_or_sub_packages():
    """No module of the project (installed packages and studies) imports one that, directly or not,
    imports it back; nor does any sub-package (every module below ``top.sub`` counted as ``top.sub``;
    a ``__main__`` module, which nothing imports, stands alone)."""
    graph = _graph()
    circle = _circle(graph)
    assert not circle, " -> ".join(circle)

    def sub(m: str) -> str:
        return m if _entry_point(m) else ".".join(m.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for m, deps in graph.items():
        packages.setdefault(sub(m), set()).update(sub(d) for d in deps if sub(d) != sub(m))
    circle = _circle(packages)
    assert not circle, " -> ".join(circle)


def _repository_python_files() -> list[Path]:
    skip = {".venv", ".git", "build", "__pycache__", "assets", ".pytest_cache"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)
                  and not any(part.endswith(".egg-info") or part.startswith(".venv") for part in p.parts))


def test_nothing_imports_the_folder_names():
    """agents/, wrappers/ and benchmarks/ are installed as colbench.agents, colbench.wrappers and
    colbench.benchmarks only (``agents`` is openai-agents' import package too): no file of the
    repository -- library, tests, studies, benchmarks, docs -- imports them by the folder's name, nor
    names such a module in a string (a plug-in spec ``agents.x:Name``, a lazy import, ``python -m``)."""
    bare = tuple(PACKAGE_DIR)
    spec = re.compile(rf"(?:python -m )?(?:{'|'.join(bare)})(?:\.\w+)+(?::\w+)?")
    bad = []
    for path in _repository_python_files():
        rel = path.relative_to(ROOT)
        bad += [f"{rel} imports {n}" for n in _imports(path) if n.split(".")[0] in bare]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if spec.fullmatch(node.value):
                bad.append(f"{rel}:{node.lineno} names {node.value!r}")
            elif "import" in node.value and (code := _as_code(node.value)) is not None:  # a plug-in's source, -c
                bad += [f"{rel}:{node.lineno} writes code that imports {n}" for n in _code_imports(code)
                        if n.split(".")[0] in bare and str(rel) not in OPENAI_AGENTS]
    assert not bad, bad


#: the file whose code for a fresh venv imports openai-agents' own ``agents`` beside colbench.agents
OPENAI_AGENTS = ("tests/test_packaging.py",)


def _as_code(text: str) -> ast.AST | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _code_imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_colbench_imports_the_verifiers_classes_only_on_demand():
    """colbench/__init__.py imports nothing of the project at module level or in any function but its
    ``__getattr__``, which imports exactly :data:`ON_DEMAND`'s module."""
    tree = ast.parse((ROOT / "colbench" / "__init__.py").read_text(encoding="utf-8"))
    lazy = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "__getattr__"]
    rest = ast.Module(body=[x for x in tree.body if not (isinstance(x, ast.FunctionDef) and x.name == "__getattr__")],
                      type_ignores=[])
    assert len(lazy) == 1 and _code_imports(lazy[0]) == ON_DEMAND["colbench"]
    assert not [n for n in _code_imports(rest) if n.split(".")[0] in FOLDERS]


def test_the_bare_name_check_sees_bare_imports(tmp_path):
    """The check above on a file written the old way (absolute and relative imports, a plug-in string)."""
    (tmp_path / "agents").mkdir()
    f = tmp_path / "agents" / "x.py"
    old = "agents"  # (spelled apart: this file's own strings are checked too)
    f.write_text(f"from .base import A\nimport {old}.served\nfrom colbench.agents import LMAgent\n")
    assert imported_modules(f, tmp_path, {"agents": "colbench.agents"}) == {
        "colbench.agents.base", "colbench.agents.base.A", f"{old}.served", "colbench.agents", "colbench.agents.LMAgent"}


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


def _unresolved_from_imports(files: list[Path], root: Path = ROOT) -> list[str]:
    """``from colbench... import name`` statements (also inside functions, which only run late: a
    study stage hours into a run) whose module or name does not exist."""
    bad = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                    and node.module.split(".")[0] in ("colbench", "colbench_env", "studies")):
                continue
            try:
                mod = importlib.import_module(node.module)
            except ImportError as e:
                bad.append(f"{f.relative_to(root)}:{node.lineno}: {e}")
                continue
            for alias in node.names:
                if alias.name == "*" or hasattr(mod, alias.name):
                    continue
                if importlib.util.find_spec(f"{node.module}.{alias.name}") is None:
                    bad.append(f"{f.relative_to(root)}:{node.lineno}: {node.module} has no {alias.name}")
    return bad


def test_the_import_resolver_sees_a_missing_name(tmp_path):
    f = tmp_path / "late.py"
    f.write_text("def late():\n    from colbench.pipeline import no_such_name\n"
                 "    from colbench_env.lm.heap import release_memory\n")
    assert _unresolved_from_imports([f], root=tmp_path) == ["late.py:2: colbench.pipeline has no no_such_name"]


def test_every_late_import_resolves():
    """Imports inside functions are resolved too: ``studies/matched_budget/run.py`` imported
    ``release_memory`` from where it no longer lived, found only when the stage ran."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # studies/ is imported from the repository root
    files = [f for top in ("colbench", "colbench_env", "agents", "wrappers", "benchmarks", "studies", "tests")
             for f in sorted((ROOT / top).rglob("*.py"))]
    assert files
    assert _unresolved_from_imports(files) == []
