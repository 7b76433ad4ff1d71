"""What a source file imports, read with ``ast`` (nothing is run): the tests of the import layers
use it (test modules never import each other)."""
from __future__ import annotations

import ast
import os
from pathlib import Path


def imported_modules(path: str | os.PathLike, root: str | os.PathLike, folders: dict[str, str] | None = None) -> set[str]:
    """Absolute names of every module an import statement of ``path`` names, at module level and
    inside functions alike (``from m import x`` names ``m`` and ``m.x``); relative imports are
    resolved against the file's package, whose dotted name is its path below ``root`` (the folder
    holding the top-level packages), its first folder named as ``folders`` maps it (pyproject.toml's
    package-dir the other way round: ``{"agents": "colbench.agents"}``)."""
    rel = Path(os.path.relpath(path, root)).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package; an __init__'s package is its own folder
    if package and folders and package[0] in folders:
        package = folders[package[0]].split(".") + package[1:]
    names = set()
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                mod = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names
