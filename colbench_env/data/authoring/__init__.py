"""Hand-authored sources of the embedded default task sets (each module writes one jsonl)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

__all__ = ["jsonl_text", "write_text", "write_cli"]


def jsonl_text(records: Iterable[dict]) -> str:
    """One JSON object per line, non-ASCII kept, newline-terminated."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (parents created) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_cli(argv: Sequence[str] | None, *, prog: str, write: Callable[[str | None], Path], count: int,
              what: str = "tasks") -> int:
    """``python -m PROG [PATH]``: write the module's jsonl (default: the packaged file)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1:
        print(f"usage: python -m {prog} [PATH]", file=sys.stderr)
        return 2
    out = write(args[0] if args else None)
    print(f"wrote {count} {what} to {out}")
    return 0
