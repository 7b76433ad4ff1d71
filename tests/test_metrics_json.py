"""No metrics file holds NaN: every JSON text the library writes (a file, stdout) is made with
``allow_nan=False``, so a NaN or infinity is an error where it is written, never a file that JSON
parsers refuse (``json.dumps`` writes ``NaN`` by default). The trainers keep an undefined metric as
``null`` (tests/test_trainers.py, PPO's explained variance)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the folders installed as the library (colbench.agents, colbench.wrappers, colbench.benchmarks among them)
LIBRARY = ("colbench", "colbench_env", "agents", "wrappers", "benchmarks")
#: calls whose argument is written out
WRITERS = ("print", "write", "write_text", "write_bytes")


def written_without_allow_nan(source: str) -> list[int]:
    """Lines of ``json.dump(...)`` calls, and of ``json.dumps(...)`` calls whose text goes straight into
    a writer (:data:`WRITERS`; through ``+``, an f-string or ``.encode()``), without ``allow_nan=False``."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "json"
                and node.func.attr in ("dump", "dumps")):
            continue
        if any(k.arg == "allow_nan" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in node.keywords):
            continue
        written = node.func.attr == "dump"
        up = parents.get(node)
        while not written and up is not None and not isinstance(up, ast.stmt):
            if isinstance(up, ast.Call):
                name = up.func.attr if isinstance(up.func, ast.Attribute) else getattr(up.func, "id", None)
                if name in WRITERS:
                    written = True
                elif name != "encode":
                    break
            up = parents.get(up)
        if written:
            lines.append(node.lineno)
    return sorted(lines)


def test_the_check_finds_json_written_without_allow_nan():
    src = ("import json, sys\n"
           "json.dump(m, f)\n"                                            # 2: a file
           "p.write_text(json.dumps(m, indent=2) + '\\n')\n"              # 3
           "print(json.dumps(m))\n"                                       # 4
           "f.write((json.dumps(r) + '\\n').encode('utf-8'))\n"           # 5
           "print(f'{json.dumps(m)}')\n"                                  # 6
           "print(json.dumps(m, allow_nan=False))\n"                      # fine
           "h = hashlib.sha256(json.dumps(m).encode())\n"                 # not written
           "key = json.dumps(m, sort_keys=True)\n"                        # not written
           "print(len(json.dumps(m)))\n"                                  # a length, not the text
           "json.dump(m, f, allow_nan=True)\n")                           # 11
    assert written_without_allow_nan(src) == [2, 3, 4, 5, 6, 11]


def test_every_json_the_library_writes_refuses_nan():
    bad = [f"{path.relative_to(ROOT)}:{line}"
           for folder in LIBRARY for path in sorted((ROOT / folder).rglob("*.py"))
           for line in written_without_allow_nan(path.read_text(encoding="utf-8"))]
    assert not bad, f"JSON written without allow_nan=False (NaN would make it invalid JSON): {bad}"
