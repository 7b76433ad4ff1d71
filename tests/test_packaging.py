"""Packaging: one version, a core install without torch/browser, extras, what the wheel holds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
HEAVY = {"torch", "transformers", "gguf", "safetensors", "selenium", "pillow", "psutil", "peft", "trl",
         "accelerate", "bitsandbytes", "matplotlib", "scikit-learn"}

# Blocks every module of the extras: what a core install (`pip install colbench`) lacks.
BLOCKER = """
import importlib.abc, sys
BLOCK = {"torch", "transformers", "gguf", "safetensors", "selenium", "PIL", "psutil", "peft", "trl",
         "accelerate", "bitsandbytes", "matplotlib", "sklearn", "jinja2", "pygments"}
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Blocker())
"""


def _name(req: str) -> str:
    for sep in "<>=![; ":
        req = req.split(sep)[0]
    return req.lower()


def test_one_version_source():
    import colbench

    assert "version" in PYPROJECT["project"]["dynamic"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "colbench.__version__"}
    assert not (ROOT / "setup.py").exists()
    assert not hasattr(__import__("colbench_env"), "__version__")  # no second copy to drift
    assert colbench.__version__.count(".") == 2


def test_core_dependencies_and_extras():
    core = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert core == {"gymnasium", "pettingzoo", "numpy", "tqdm"}
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(extras) == {"lm", "frontend", "train", "trl", "verifiers", "serve", "bench", "dev", "view", "docs", "all"}
    assert {_name(r) for r in extras["lm"]} >= {"torch", "transformers"}
    assert {_name(r) for r in extras["frontend"]} >= {"selenium", "pillow", "psutil"}
    assert "colbench[lm]" in extras["train"] and {_name(r) for r in extras["train"]} >= {"peft", "trl", "accelerate"}
    assert {_name(r) for r in extras["view"]} == {"jinja2", "pygments", "matplotlib"}
    assert "trl==1.16.0" in extras["trl"] and extras["verifiers"] == ["verifiers>=0.4,<0.5"]  # the versions tested
    assert {_name(r) for r in extras["serve"]} == {"openenv", "uvicorn", "fastapi"} and "openenv==0.4.1" in extras["serve"]
    assert {_name(r) for r in extras["docs"]} == {"mkdocs", "mkdocs-material", "mkdocstrings"}
    assert "colbench[docs]" in extras["dev"]  # the suite builds the site (tests/test_docs.py)
    assert extras["all"] == ["colbench[lm,frontend,train,trl,verifiers,serve,bench,dev,view,docs]"]
    assert "scikit-learn" not in json.dumps(PYPROJECT)  # nothing uses it
    assert PYPROJECT["project"]["scripts"] == {"colbench": "colbench.cli:main"}


def _core_python(code: str, tmp_path, **env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", BLOCKER + code], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)


def test_envs_and_colbench_run_work_without_any_extra(tmp_path):
    p = _core_python("""
import gymnasium as gym
import colbench_env
env = gym.make("ColBench-Backend-v0")
obs, info = env.reset(seed=0)
assert info["turn"] == 0
obs, r, term, trunc, info = env.step("OUTPUT: What should it return?")
assert not term and json.loads(obs["dialogue"])[-1]["role"] == "user"
aec = colbench_env.aec_env("backend"); aec.reset(seed=0)
from colbench.cli import main
rc = main(["run", "--agent", "scripted", "--episodes", "2", "--out", "r.jsonl", "--json"])
assert "torch" not in sys.modules and "PIL" not in sys.modules
sys.exit(rc)
""".replace("import gymnasium", "import json\nimport gymnasium"), tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert json.loads(p.stdout.strip().splitlines()[-1])["count"] == 2


def test_a_missing_extra_is_named(tmp_path):
    p = _core_python("""
from colbench.cli import main
sys.exit(main(["run", "--agent", "smollm2", "--episodes", "1", "--out", "r.jsonl"]))
""", tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert "colbench run: error: this needs the 'lm' extra" in p.stderr
    assert "pip install 'colbench[lm]'" in p.stderr


def test_view_without_its_extra_says_which_before_any_work(tmp_path):
    p = _core_python(f"""
from colbench.cli import main
sys.exit(main(["view", {str(ROOT / "studies/pipeline_small/eval/rft.jsonl")!r}, "--out", "r.html"]))
""", tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert p.stderr.strip() == ("colbench view: error: this needs the 'view' extra (No module named 'jinja2'): "
                                "pip install 'colbench[view]'")
    assert not (tmp_path / "r.html").exists()


def test_setup_without_npm_says_what_to_install(tmp_path):
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    p = subprocess.run([sys.executable, "-m", "colbench", "setup"], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, PATH=str(empty_bin), COLBENCH_CACHE=str(tmp_path / "cache")), timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("colbench setup: error: npm not found") and "apt-get install npm" in line
    assert str(tmp_path / "cache" / "assets" / "tailwind-2.2.19.min.css") in line


def test_setup_keeps_a_verified_stylesheet_without_network(tmp_path):
    from colbench_env.evaluation.offline_assets import find_tailwind_css
    from colbench_env.evaluation.tailwind_fetch import fetch_tailwind

    src = find_tailwind_css(fetch=False)  # the checkout's copy (make assets)
    dest = tmp_path / "assets"
    dest.mkdir()
    (dest / src.name).write_bytes(src.read_bytes())
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    old = os.environ["PATH"]
    os.environ["PATH"] = str(empty_bin)  # no npm: a verified file must not need it
    try:
        assert fetch_tailwind(dest) == dest / src.name
    finally:
        os.environ["PATH"] = old


def test_configs_dir_lists_every_launch_config_with_its_command():
    """Each shipped accelerate config is named in ``configs_dir``'s docstring, loads with accelerate's
    own reader, and starts with the ``accelerate launch`` line that uses it (a CPU one on 2 processes)."""
    import colbench
    from accelerate.commands.config.config_args import load_config_from_file

    shipped = sorted(colbench.configs_dir().glob("accelerate/*.yaml"))
    assert {f.name for f in shipped} == {"ddp_cpu.yaml", "fsdp.yaml", "fsdp_cpu.yaml", "deepspeed_zero3.yaml",
                                         "deepspeed_zero3_cpu.yaml"}
    for f in shipped:
        assert f"accelerate/{f.name}" in colbench.configs_dir.__doc__, f.name
        first = f.read_text().splitlines()[0]
        assert first.startswith(f"# accelerate launch --config_file colbench/configs/accelerate/{f.name} -m colbench train "), first
        config = load_config_from_file(str(f))
        assert config.num_processes == (2 if f.stem.endswith("_cpu") else 8), f.name
        assert config.mixed_precision == ("no" if f.stem.endswith("_cpu") else "bf16"), f.name


def test_the_package_list_is_every_package_folder():
    """pyproject.toml lists its packages (agents/, wrappers/, benchmarks/ are installed as
    colbench.agents, ...: package-dir): the list is every folder with an ``__init__.py`` of the
    installed code, named as installed, but the task-authoring scripts."""
    setuptools = PYPROJECT["tool"]["setuptools"]
    folders = {"colbench": "colbench", "colbench_env": "colbench_env",
               **{folder: name for name, folder in setuptools["package-dir"].items()}}
    assert setuptools["package-dir"] == {"colbench.agents": "agents", "colbench.wrappers": "wrappers",
                                         "colbench.benchmarks": "benchmarks"}
    found = set()
    for folder, name in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if "authoring" not in parts and "__pycache__" not in parts:
                found.add(".".join([name, *parts]))
    assert sorted(setuptools["packages"]) == sorted(found)


def test_only_colbench_and_colbench_env_are_top_level_names(tmp_path):
    """The installed distribution (make test's .venv: an editable install) provides the top-level
    names colbench and colbench_env only: run outside the repository, ``agents``, ``wrappers`` and
    ``benchmarks`` import nothing (openai-agents' ``agents`` is free), and colbench.agents,
    colbench.wrappers, colbench.benchmarks are this checkout's folders (an editable install; a
    regular one's are inside the installed colbench)."""
    code = ("import importlib.util, json, colbench, colbench.agents, colbench.wrappers, colbench.benchmarks\n"
            "from importlib.metadata import distribution\n"
            "dist = distribution('colbench')\n"
            "print(json.dumps([dist.read_text('top_level.txt').split(), json.loads(dist.read_text('direct_url.json') or '{}'),"
            " [importlib.util.find_spec(n) is None for n in ('agents', 'wrappers', 'benchmarks')],"
            " colbench.__file__, [m.__file__ for m in (colbench.agents, colbench.wrappers, colbench.benchmarks)]]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as installed: not the checkout's folders
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    top_level, direct_url, absent, init, files = json.loads(p.stdout)
    assert sorted(top_level) == ["colbench", "colbench_env"]
    editable = direct_url.get("dir_info", {}).get("editable", False)
    assert absent == [True, True, True]
    home = ROOT if editable else Path(init).parent
    assert files == [str(home / folder / "__init__.py") for folder in ("agents", "wrappers", "benchmarks")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout (built from a copy: building leaves build/ and *.egg-info behind)."""
    import shutil

    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv*", "assets", "build", "*.egg-info", "results", "runs", ".git", "__pycache__", ".pytest_cache"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(tmp), str(src)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    (built,) = tmp.glob("colbench-*.whl")
    return built


@pytest.mark.slow
def test_wheel_holds_the_library_and_benchmarks_but_not_the_authoring_scripts_or_studies(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    from colbench import configs_dir

    shipped = sorted(configs_dir().glob("accelerate/*.yaml"))
    assert len(shipped) == 5 and all(f"colbench/configs/accelerate/{f.name}" in names for f in shipped)
    assert "colbench_env/data/backend/part_a.jsonl" in names and "colbench_env/data/frontend/tasks.jsonl" in names
    assert "colbench/cli/run.py" in names and "colbench/runs.py" in names and "colbench/agents/registry.py" in names
    for module in ("colbench/pipeline/run.py", "colbench/pipeline/config.py", "colbench/critics/ranking.py",
                   "colbench/cli/pipeline.py", "colbench/agents/rft_config.py", "colbench/wrappers/recorder.py",
                   "colbench/benchmarks/bench.py", "colbench/benchmarks/bench_train_stages/__main__.py"):
        assert module in names, module
    assert {"colbench/viewer/templates/report.html.j2", "colbench/viewer/templates/episode.html.j2",
            "colbench/viewer/static/viewer.js", "colbench/viewer/static/viewer.css"} <= set(names)
    # two top-level names: colbench and colbench_env (agents/, wrappers/, benchmarks/ live inside colbench)
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"colbench", "colbench_env"}
    top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["colbench", "colbench_env"]
    assert not [n for n in names if "authoring" in n or "studies/" in n or "tests/" in n or "/results/" in n]
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "colbench = colbench.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


@pytest.mark.slow
def test_the_wheel_installs_beside_openai_agents(wheel, tmp_path):
    """The wheel in a fresh venv together with openai-agents (whose import package is ``agents``):
    both import in one process, each its own, and ColBench still runs an episode (the core install:
    the wheel's four core dependencies; pip's cache keeps reruns cheap)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    core = PYPROJECT["project"]["dependencies"]
    p = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel), *core, "openai-agents"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    code = """
import json, agents, colbench.agents, gymnasium as gym
from agents import Agent as OpenAIAgent
from colbench.agents import ScriptedAgent
from colbench.runs import RunConfig, run
helper = OpenAIAgent(name="helper", instructions="be brief")  # openai-agents' own class, no network
metrics = run(RunConfig(out="r.jsonl", agent="scripted", episodes=2))
print(json.dumps({"agents": agents.__file__, "colbench.agents": colbench.agents.__file__,
                  "helper": type(helper).__module__, "scripted": ScriptedAgent.__module__, "count": metrics["count"]}))
"""
    p = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    site = Path(got["agents"]).parents[1]
    assert Path(got["agents"]) == site / "agents" / "__init__.py"  # openai-agents' package
    assert Path(got["colbench.agents"]) == site / "colbench" / "agents" / "__init__.py"
    assert got["helper"].startswith("agents.") and got["scripted"] == "colbench.agents.base" and got["count"] == 2


@pytest.mark.slow
def test_setup_fetches_the_stylesheet_from_the_npm_registry(tmp_path):
    """What a pip-installed frontend user gets on first use: the real `npm pack` from the registry (as
    `make assets` does), into an empty cache, checksum-verified; byte-identical to the checkout's copy."""
    from colbench_env.evaluation.offline_assets import find_tailwind_css

    cache = tmp_path / "cache"
    p = subprocess.run([sys.executable, "-m", "colbench", "setup"], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, COLBENCH_CACHE=str(cache)), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    got = cache / "assets" / "tailwind-2.2.19.min.css"
    assert got.read_bytes() == find_tailwind_css(fetch=False).read_bytes()
