"""griffe extension: the docstrings' reST roles (``:class:`~a.b.C```, ``:func:`f```, ...) as code spans.

The docstrings are written for readers of the source, in Google style with Sphinx-like roles; the
API reference shows a role as the code it names (``C`` for ``~a.b.C``, else the whole path).
"""
from __future__ import annotations

import re

from griffe import Extension

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|ref|doc):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """``text`` with every role replaced by a code span of its target."""
    return ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)


class RestRoles(Extension):
    """Rewrites the roles of every docstring griffe loads."""

    def on_instance(self, *, obj, **kwargs) -> None:  # noqa: ARG002 (griffe's hook signature)
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
