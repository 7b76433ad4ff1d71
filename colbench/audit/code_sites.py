"""Where a ground truth's tests could depend on something nobody told the agent: the constants,
strings, roundings and format specifications of its code (*sites*), each with the words around it
and the mutants that change it (what :mod:`colbench.audit.tasks` runs to see whether the tests depend
on it).

A site is an ``ast.Constant`` of the code (docstrings left out) or a ``round`` call:

* ``number``: an int or float other than 0, 1, 2 and -1 (those are taken as structure: indices,
  counts, steps, halves) and other than ``round``'s digits (a ``round`` site); mutants ``x + 1``, ``x - 1``, ``2 x``, ``x / 2``;
* ``string``: a string of three or more characters; mutant: the string with ``~~`` appended (a test
  whose output then holds ``~~`` pins the string as output text: a *layout*; one whose output changes
  without it compares inputs with it: a *category*);
* ``round``: ``round(x, n)`` (mutant: ``n + 1`` digits) or ``round(x)`` (mutant: 1 digit);
* ``spec``: a format specification with a precision (``{x:.2f}``; mutant: one more digit).

Mutants are the code's syntax tree with the one node changed, unparsed (:func:`ast.unparse`; so the
original is compared in its unparsed form too: :func:`unparsed`).
"""
from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

__all__ = ["Site", "find_sites", "mutants", "unparsed", "function_parameters", "spec_digits", "MARKER"]

#: appended to a string by its mutant; an output holding it is that string's text
MARKER = "~~"
#: numbers taken as structure, not constants (see the module docstring)
STRUCTURAL = (0, 1, 2, -1)
_BUILTIN_NAMES = {"round", "len", "sum", "min", "max", "abs", "int", "float", "str", "list", "dict", "set", "tuple",
                  "sorted", "range", "enumerate", "zip", "map", "filter", "math", "isinstance", "any", "all", "bool",
                  "get", "items", "keys", "values", "append", "join", "split", "strip", "lower", "upper", "format",
                  "ceil", "floor", "self", "none", "true", "false", "return", "result"}


@dataclass
class Site:
    """One place of the code the tests may depend on (see the module docstring).

    Attributes:
        index: the node's position in :func:`ast.walk` order (what :func:`mutants` changes).
        kind: ``"number"``, ``"string"``, ``"round"`` or ``"spec"``.
        value: the constant (``round``: its digits, ``None`` for ``round(x)``; ``spec``: the spec text).
        line: its line in the code.
        source: that line, stripped.
        role: ``"threshold"`` (in a comparison), ``"rate"`` (multiplied, divided, ``%``, ``divmod``), ``"amount"``
            (added or subtracted) or ``"value"``.
        words: the words around it an agent could ask with: the names and short strings of its
            statement (identifiers split at ``_`` and case changes, builtins left out) and, for a
            dict value, its key first.
    """

    index: int
    kind: str
    value: object
    line: int
    source: str
    role: str = "value"
    words: list[str] = field(default_factory=list)


def unparsed(code: str) -> str:
    """The code as :func:`ast.unparse` writes it (how every mutant is written)."""
    return ast.unparse(ast.parse(code))


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            out.add(id(body[0].value))
    return out


def _split(name: str) -> list[str]:
    return [p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])|\d+", name) if len(p) > 1]


def _statement_words(stmt: ast.AST, skip: ast.AST) -> list[str]:
    words: list[str] = []
    for node in ast.walk(stmt):
        if node is skip:
            continue
        if isinstance(node, ast.Name):
            words += _split(node.id)
        elif isinstance(node, ast.Attribute):
            words += _split(node.attr)
        elif isinstance(node, ast.arg):
            words += _split(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and 3 <= len(node.value) <= 30:
            words.append(node.value)
    return [w for w in dict.fromkeys(words) if w.lower() not in _BUILTIN_NAMES]


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _role_and_words(node: ast.AST, parents: dict[int, ast.AST]) -> tuple[str, list[str]]:
    role, first = "value", []
    cur = node
    while id(cur) in parents:
        parent = parents[id(cur)]
        if role == "value":
            if isinstance(parent, ast.Compare):
                role = "threshold"
            elif isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)) \
                    or isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "divmod":
                role = "rate"
            elif isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub)):
                role = "amount"
        if isinstance(parent, ast.Dict) and cur in parent.values:
            key = parent.keys[parent.values.index(cur)]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                first = [key.value]
        if isinstance(parent, ast.stmt) and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # a compound statement: only the part that holds the site (an if's test, not its body)
            part = {ast.If: "test", ast.While: "test", ast.For: "iter", ast.With: "items"}.get(type(parent))
            scope = getattr(parent, part) if part else parent
            scope = ast.Tuple(elts=scope, ctx=ast.Load()) if isinstance(scope, list) else scope
            return role, list(dict.fromkeys(first + _statement_words(scope, node)))
        cur = parent
    return role, first


def spec_digits(spec: str) -> int | None:
    """The precision of a format specification (``".2f"`` -> 2), ``None`` without one."""
    m = re.search(r"\.(\d+)[fFeE%g]?$", spec)
    return int(m.group(1)) if m else None


def find_sites(code: str) -> list[Site]:
    """The sites of ``code`` (see the module docstring), in :func:`ast.walk` order. Unparsable code has none."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return []
    docs = _docstrings(tree)
    parents = _parents(tree)
    lines = code.splitlines()
    sites = []
    for i, node in enumerate(ast.walk(tree)):
        kind = value = None
        if isinstance(node, ast.Constant) and id(node) not in docs:
            v = node.value
            parent = parents.get(id(node))
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "round" \
                    and node in parent.args[1:]:
                pass  # round's digits: the round site
            elif type(v) in (int, float):
                neg = isinstance(parents.get(id(node)), ast.UnaryOp) and isinstance(parents[id(node)].op, ast.USub)
                if (-v if neg else v) not in STRUCTURAL:
                    kind, value = "number", (-v if neg else v)
            elif isinstance(v, str):
                parent = parents.get(id(node))
                in_spec = isinstance(parent, ast.JoinedStr) and isinstance(parents.get(id(parent)), ast.FormattedValue)
                if in_spec and spec_digits(v) is not None:
                    kind, value = "spec", v
                elif not in_spec and len(v.strip()) >= 3:
                    kind, value = "string", v
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "round" \
                and 1 <= len(node.args) <= 2:
            digits = node.args[1] if len(node.args) == 2 else None
            if digits is None or (isinstance(digits, ast.Constant) and type(digits.value) is int):
                kind, value = "round", (None if digits is None else digits.value)
        if kind is None:
            continue
        line = getattr(node, "lineno", 0)
        role, words = _role_and_words(node, parents)
        sites.append(Site(i, kind, value, line, lines[line - 1].strip() if 0 < line <= len(lines) else "", role, words))
    return sites


def mutants(code: str, site: Site) -> list[str]:
    """The code with ``site`` changed, once per mutation of its kind (module docstring); each unparsed."""
    tree = ast.parse(code)
    out = []
    if site.kind == "number":
        x = site.value
        changes = [x + 1, x - 1, x * 2, x / 2]
    elif site.kind == "string":
        changes = [site.value + MARKER]
    elif site.kind == "round":
        changes = [1 if site.value is None else site.value + 1]
    else:
        d = spec_digits(site.value)
        changes = [re.sub(r"\.(\d+)(?=[fFeE%g]?$)", f".{d + 1}", site.value)]
    seen = set()
    for new in changes:
        if site.kind == "number" and (new == site.value or new in seen):
            continue
        seen.add(new)
        t = copy.deepcopy(tree)
        node = next(n for j, n in enumerate(ast.walk(t)) if j == site.index)
        if site.kind == "round":
            if len(node.args) == 2:
                node.args[1] = ast.Constant(new)
            else:
                node.args.append(ast.Constant(new))
        elif site.kind == "number" and site.value != node.value:  # a negative number: the node is its magnitude
            node.value = -new
        else:
            node.value = new
        out.append(ast.unparse(ast.fix_missing_locations(t)))
    return out


def function_parameters(fn: ast.FunctionDef) -> list[str]:
    """The parameter names of a ``def``, in order (``*args`` / ``**kwargs`` with their stars)."""
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return names
