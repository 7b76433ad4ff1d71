"""What a resumed output may not change, the part every resumable command shares: the settings an
output was made with are kept beside it as a JSON object (``colbench run``: ``<out>.run.json``;
``colbench pipeline`` and ``colbench critic-ranking``: ``config.json`` in the out-dir); a resume reads
them back (:func:`read_json_object`) and lists the fields it would change (:func:`changed_fields`).
Each command decides which fields matter and words its refusal (:func:`colbench.runs.check_resume`,
:func:`colbench.pipeline.check_resume`, :func:`colbench.critics.ranking.check_resume`)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

__all__ = ["as_json", "changed_fields", "policy_server_changed", "read_json_object"]


def read_json_object(path: str | os.PathLike) -> dict:
    """The JSON object stored in ``path``; a ValueError naming the file when it is not one (invalid
    JSON, not UTF-8 text, another JSON type)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, ...), for comparison with a stored one."""
    return json.loads(json.dumps(value))


def changed_fields(old: dict, want: dict, fields: Sequence[str] | None = None, *,
                   compare_missing: bool = False) -> list[tuple[str, Any, Any]]:
    """``(field, stored value, wanted value)`` for each of ``fields`` (default: every key of either,
    sorted) whose stored value (``old``) differs from the wanted one (``want``, compared as JSON). A
    field ``old`` lacks is not compared (it predates the field), unless ``compare_missing``: then
    it reads as ``None``, as does a field ``want`` lacks."""
    if fields is None:
        fields = sorted(set(old) | set(want))
    out = []
    for f in fields:
        if f not in old and not compare_missing:
            continue
        was, now = old.get(f), as_json(want.get(f))
        if was != now:
            out.append((f, was, now))
    return out


def policy_server_changed(old: dict, base_url: Any) -> list[tuple[str, Any, Any]]:
    """``[("policy_base_url", stored, wanted)]`` when an output made by a served policy (a stored
    ``policy_base_url``) would be resumed by the local one, or the other way round; ``[]`` otherwise.
    The server's address itself may change (a restarted server, more servers): only whether the
    policy's turns come from a server is compared, since a server samples (and, on other hardware
    and kernels, decodes) differently from ``transformers.generate`` here. A stored setting without
    the field predates served policies: it was made locally."""
    was = old.get("policy_base_url")
    return [] if bool(was) == bool(base_url) else [("policy_base_url", was, base_url)]
