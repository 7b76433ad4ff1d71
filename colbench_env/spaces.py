"""Text spaces that honestly contain every string the environments emit or accept.

``gymnasium.spaces.Text`` defaults to a 62-character alphanumeric charset (no space, punctuation or
newline) and ``min_length=1``; listing every Unicode code point as its charset costs seconds and
~190 MiB per space. :class:`UnicodeText` keeps a small charset only for :meth:`sample` and checks
membership by type and length, so any Unicode text -- whitespace, code, HTML, emoji -- is contained.
"""
from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

#: Characters used by :meth:`UnicodeText.sample` (membership does not depend on it).
SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n\té€😀"


class UnicodeText(spaces.Text):
    """A :class:`gymnasium.spaces.Text` containing every ``str`` whose length is in bounds.

    Args:
        max_length: the longest string contained.
        min_length: the shortest string contained (default 0: the empty string is contained).
        seed: seed for :meth:`sample`.
    """

    def __init__(self, max_length: int = 1_000_000, *, min_length: int = 0, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"UnicodeText(min_length={self.min_length}, max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def sample(self, mask: Any = None, probability: Any = None) -> str:  # noqa: D102
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(self.np_random.integers(self.min_length, min(self.max_length, 64) + 1))
        idx = self.np_random.integers(0, len(SAMPLE_CHARSET), size=length)
        return "".join(SAMPLE_CHARSET[i] for i in np.asarray(idx))
