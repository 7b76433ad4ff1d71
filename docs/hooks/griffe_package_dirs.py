"""griffe extension: sub-packages that pyproject.toml maps to other folders (``[tool.setuptools.package-dir]``,
e.g. ``"colbench.agents" = "agents"``) are read from those folders, so that the API reference finds them
under their installed names. Static analysis alone looks for ``colbench/agents/``, which does not exist.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from griffe import Extension

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def package_dirs(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """``{"colbench.agents": "agents", ...}``: the dotted sub-packages mapped to a folder of their own."""
    with open(pyproject, "rb") as f:
        table = tomllib.load(f).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return {name: folder for name, folder in table.items() if name and "." in name}


class PackageDirs(Extension):
    """When a parent package is loaded, loads each mapped folder and sets it as the parent's member."""

    def __init__(self) -> None:
        self.mapping = package_dirs()

    def on_package(self, *, pkg, loader, **kwargs) -> None:  # noqa: ARG002 (griffe's hook signature)
        for dotted, folder in self.mapping.items():
            parent, name = dotted.rsplit(".", 1)
            if parent == pkg.path:
                pkg.set_member(name, loader.load(folder, try_relative_path=False))
