"""Python source -> facts in plain words, for the offline human of official ColBench records.

Official backend records hold the ground-truth function itself as the human's hidden information.
A person holding that code would say what it means, not read it out. :func:`code_facts` reads the
code's AST and writes one :class:`Fact` per meaningful statement:

* each constant with what it is for, named from the variables, parameters and comparisons around it
  ("The rates are 'bad' 0.05, 'okay' 0.12 and 'good' 0.18.");
* each condition as a sentence with its outcome ("If the age is under 18, the function returns
  'minor'."); an ``elif`` reads "Otherwise, if ...", the final ``else`` (or the return after a
  ladder of early returns) reads "In any other case, ...";
* arithmetic in words ("a weighted sum where the multiplayer wins count for 40 percent, ...");
* what is returned and when, rounding and formatting, and the string values the function outputs
  (quoted exactly: they are what the human wants to see).

No code span is copied through: identifiers become words ("tower_of_lost_souls_score" -> "tower of
lost souls score"), operators become words, and an expression the describer does not know becomes
"a computed value" rather than its source text. Each fact also carries *topics*: the words of the
identifiers and string values it involves and role words ("percent", "threshold", "round",
"otherwise", "category", ...) that let a question find it.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

__all__ = ["Fact", "code_facts", "humanise", "sentences"]


@dataclass(frozen=True)
class Fact:
    """One thing the human can say.

    Attributes:
        text: the sentence, in plain words.
        topics: extra words the fact is about (identifier words, string values, role words), matched
            against the words of a question together with the words of ``text``.
    """

    text: str
    topics: frozenset = field(default_factory=frozenset)


#: A comment or docstring sentence that holds code (operators, brackets, calls) is not said.
_CODEISH = re.compile(r"==|\*\*|[\[\]{}=`<>]|\w\(|\.\w+\(")


def _prose(text: str) -> bool:
    return not _CODEISH.search(text)


def sentences(text: str) -> list[str]:
    """Split prose into sentences (one fact each)."""
    text = re.sub(r"\s+", " ", text).strip()
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9'\"(])", text)
    return [p.strip() for p in parts if len(p.strip()) > 1]


def humanise(name: str) -> str:
    """``tower_of_lost_souls_score`` -> ``tower of lost souls score``; ``maxHR`` -> ``max hr``."""
    parts = re.split(r"_+|(?<=[a-z0-9])(?=[A-Z])", name)
    words = [p.lower() for p in parts if p]
    return " ".join(words) if words else name


def _num(v: float | int) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(v)


def _percent(v: float) -> str | None:
    """``0.25`` -> ``"25"`` when ``v`` is a fraction that reads well as a percentage."""
    if not isinstance(v, float) or not 0 < v < 1:
        return None
    p = round(v * 100, 6)
    return _num(float(p)) if abs(p * 100 - round(p * 100)) < 1e-6 else None


def _quote(s: str) -> str:
    return "'" + s.replace("\n", " ") + "'"


_SEPARATORS = {", ": "a comma and a space", ",": "a comma", " ": "a space", "": "nothing", "-": "a hyphen",
               "_": "an underscore", "\n": "a new line", "; ": "a semicolon and a space", ";": "a semicolon",
               " | ": "a bar with spaces", "/": "a slash", ".": "a dot", ":": "a colon", " - ": "a dash with spaces",
               ", and ": "a comma and 'and'", " and ": "the word 'and'"}

_ORDINAL = {0: "the first", 1: "the second", 2: "the third", -1: "the last", -2: "the second to last"}

_CMP = {ast.Lt: "is under", ast.LtE: "is at most", ast.Gt: "is over", ast.GtE: "is at least", ast.Eq: "is",
        ast.NotEq: "is not", ast.In: "is one of", ast.NotIn: "is not one of", ast.Is: "is", ast.IsNot: "is not"}
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}

_TYPE_WORDS = {"int": "a whole number", "float": "a decimal number", "str": "text", "list": "a list", "dict": "a mapping",
               "bool": "true or false", "tuple": "a group of values", "set": "a set"}


class _Describer:
    """Turns expressions into words, collecting the topics it meets on the way."""

    def __init__(self) -> None:
        self.topics: set[str] = set()
        self.alias: dict[str, str] = {}
        #: sentences worth a fact of their own, met while describing (how a compound weighted term is made)
        self.details: list[str] = []

    # -- helpers ---------------------------------------------------------------------------
    def loop_alias(self, target: ast.AST) -> None:
        """Name a loop variable: a one- or two-letter variable alone is "the item" ("the inner item"
        inside another loop); in a tuple (``for s, e in busy``) each letter stays itself."""
        if isinstance(target, ast.Name):
            if len(target.id) <= 2:
                self.alias[target.id] = "the inner item" if "the item" in self.alias.values() else "the item"
            return
        for t in ast.walk(target):
            if isinstance(t, ast.Name) and len(t.id) <= 2:
                self.alias[t.id] = t.id

    def topic(self, *words: str) -> None:
        self.topics.update(words)

    def name(self, ident: str) -> str:
        if ident in self.alias:
            return self.alias[ident]
        h = humanise(ident)
        if h.startswith("is ") and len(h) > 3:  # is_married: "if married", "not married"
            h = h[3:]
        self.topics.update(h.split())
        self.topics.add(ident.lower())
        return h

    def const(self, v: object) -> str:
        if isinstance(v, str):
            self.topic("text", "word", "string")
            self.topics.update(w.lower() for w in re.findall(r"[A-Za-z]+", v))
            return _quote(v)
        if v is None:
            self.topic("none", "empty", "missing")
            return "nothing"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            if v not in (0, 1):
                self.topic("number", "value", "amount")
            if isinstance(v, float) and 0 < v < 1:
                self.topic("percent", "weight", "fraction", "factor")
            return _num(v)
        return "a value"

    def listing(self, items: Sequence[str]) -> str:
        items = list(items)
        if not items:
            return "nothing"
        if len(items) == 1:
            return items[0]
        return ", ".join(items[:-1]) + " and " + items[-1]

    # -- expressions -----------------------------------------------------------------------
    def expr(self, node: ast.AST) -> str:
        """The words for ``node``: one ``_<NodeType>`` method per kind; an unknown kind is "a computed value"."""
        m = getattr(self, "_" + type(node).__name__, None)
        if m is None:
            return "a computed value"
        return m(node)

    def _Constant(self, n: ast.Constant) -> str:
        return self.const(n.value)

    def _Name(self, n: ast.Name) -> str:
        if n.id in ("True", "False", "None"):
            return self.const({"True": True, "False": False, "None": None}[n.id])
        return self.name(n.id)

    def _Attribute(self, n: ast.Attribute) -> str:
        if isinstance(n.value, ast.Name) and n.value.id == "math":
            return {"pi": "pi", "inf": "infinity", "e": "e"}.get(n.attr, humanise(n.attr))
        return f"the {self.name(n.attr)} of {self.expr(n.value)}"

    def _UnaryOp(self, n: ast.UnaryOp) -> str:
        if isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant) and isinstance(n.operand.value, (int, float)):
            return self.const(-n.operand.value)
        if isinstance(n.op, ast.Not):
            if isinstance(n.operand, ast.Name) and n.operand.id.startswith("is_"):
                return f"not {self.expr(n.operand)}"  # not is_member -> "not member"
            if isinstance(n.operand, (ast.Name, ast.Attribute, ast.Subscript)):
                self.topic("empty", "missing", "edge")
                return f"{self.expr(n.operand)} is empty or missing"
            return f"it is not true that {self.expr(n.operand)}"
        if isinstance(n.op, ast.USub):
            return f"minus {self.expr(n.operand)}"
        return self.expr(n.operand)

    def _BoolOp(self, n: ast.BoolOp) -> str:
        word = " and " if isinstance(n.op, ast.And) else " or "
        return word.join(self.expr(v) for v in n.values)

    def _terms(self, n: ast.AST) -> list[tuple[int, ast.AST]]:
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            left = self._terms(n.left)
            return left + [(1 if isinstance(n.op, ast.Add) else -1, n.right)]
        return [(1, n)]

    @staticmethod
    def _weight(n: ast.AST) -> tuple[float, ast.AST] | None:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            for c, other in ((n.left, n.right), (n.right, n.left)):
                if isinstance(c, ast.Constant) and isinstance(c.value, float) and 0 < c.value < 1:
                    return c.value, other
        return None

    def _is_text(self, n: ast.AST) -> bool:
        return (isinstance(n, ast.Constant) and isinstance(n.value, str)) or isinstance(n, ast.JoinedStr) or (
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and (self._is_text(n.left) or self._is_text(n.right)))

    def _operand(self, n: ast.AST) -> str:
        """An operand of a product or quotient: sums and differences get named as one amount."""
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)) and not self._is_text(n):
            word = "the sum of" if isinstance(n.op, ast.Add) else "the difference of"
            return f"{word} {self.expr(n.left)} and {self.expr(n.right)}"
        return self.expr(n)

    def _BinOp(self, n: ast.BinOp) -> str:
        op = n.op
        if isinstance(op, ast.Add) and self._is_text(n):
            self.topic("text", "format", "join")
            return f"{self.expr(n.left)} followed by {self.expr(n.right)}"
        if isinstance(op, (ast.Add, ast.Sub)):
            terms = self._terms(n)
            weighted = [(sign, self._weight(t), t) for sign, t in terms]
            if sum(1 for _, w, _ in weighted if w) >= 2:
                self.topic("weight", "weighted", "percent", "score")
                parts, rest = [], []
                for sign, w, t in weighted:
                    if w:
                        value, other = w
                        share = f"{_percent(value) or _num(value)} percent"
                        words = self._operand(other)
                        parts.append(f"{words} counts {'against it ' if sign < 0 else ''}for {share}")
                        self.const(value)
                        if not isinstance(other, (ast.Name, ast.Attribute, ast.Constant)):
                            called = {id(c.func) for c in ast.walk(other) if isinstance(c, ast.Call)}
                            main = next((x.id for x in ast.walk(other) if isinstance(x, ast.Name) and id(x) not in called),
                                        None)
                            label = f"the {humanise(main)} part" if main else "one part"
                            self.details.append(f"{label} counts for {share} of it, worked out as {words}")
                    else:
                        rest.append(("plus " if sign > 0 else "minus ") + self.expr(t))
                return "a weighted sum where " + self.listing(parts) + ("" if not rest else ", " + " ".join(rest))
            out = self.expr(terms[0][1])
            for sign, t in terms[1:]:
                out += (" plus " if sign > 0 else " minus ") + self.expr(t)
            return out
        if isinstance(op, ast.Mult):
            w = self._weight(n)
            if w:
                value, other = w
                self.const(value)
                return f"{_percent(value) or _num(value)} percent of {self._operand(other)}"
            return f"{self._operand(n.left)} times {self._operand(n.right)}"
        if isinstance(op, ast.Div):
            return f"{self._operand(n.left)} divided by {self._operand(n.right)}"
        if isinstance(op, ast.FloorDiv):
            self.topic("round", "whole")
            return f"{self._operand(n.left)} divided by {self._operand(n.right)}, rounded down to a whole number"
        if isinstance(op, ast.Mod):
            if isinstance(n.left, ast.Constant) and isinstance(n.left.value, str):
                self.topic("format", "text")
                return f"the text {self.expr(n.left)} filled in with {self.expr(n.right)}"
            return f"the remainder of {self._operand(n.left)} divided by {self._operand(n.right)}"
        if isinstance(op, ast.BitOr):
            return f"everything in {self.expr(n.left)} or in {self.expr(n.right)}"
        if isinstance(op, ast.BitAnd):
            return f"what is in both {self.expr(n.left)} and {self.expr(n.right)}"
        if isinstance(op, ast.Pow):
            if isinstance(n.right, ast.Constant) and n.right.value == 2:
                return f"{self._operand(n.left)} squared"
            if isinstance(n.right, ast.Constant) and n.right.value == 0.5:
                return f"the square root of {self._operand(n.left)}"
            return f"{self._operand(n.left)} raised to the power of {self._operand(n.right)}"
        return "a computed value"

    def _Compare(self, n: ast.Compare) -> str:
        left, parts = n.left, []
        for op, right in zip(n.ops, n.comparators):
            a, b, o = left, right, type(op)
            if isinstance(a, ast.Constant) and not isinstance(b, ast.Constant) and o in _FLIP:
                a, b, o = b, a, _FLIP[o]
            if isinstance(b, ast.Constant) and isinstance(b.value, (int, float)) and not isinstance(b.value, bool):
                self.topic("threshold", "condition", "case", "when")
                if b.value <= 0:  # "what if the bill is zero or negative?"
                    self.topic("edge", "negative", "zero")
            elif isinstance(b, ast.Constant) and isinstance(b.value, str) or isinstance(b, (ast.List, ast.Tuple, ast.Set)):
                self.topic("category", "case", "condition", "when", "type")
            if isinstance(b, ast.Constant) and b.value == 0 and isinstance(a, ast.Call) and \
                    isinstance(a.func, ast.Name) and a.func.id == "len":
                self.topic("empty", "edge", "nothing", "zero")
            if isinstance(b, ast.Constant) and b.value is None:
                self.topic("missing", "edge")
                parts.append(f"{self.expr(a)} {'is missing' if o in (ast.Is, ast.Eq) else 'is given'}")
            else:
                parts.append(f"{self.expr(a)} {_CMP.get(o, 'compares to')} {self.expr(b)}")
            left = right
        return " and ".join(parts)

    def _IfExp(self, n: ast.IfExp) -> str:
        self.topic("otherwise", "condition", "case")
        return f"{self.expr(n.body)} when {self.expr(n.test)}, otherwise {self.expr(n.orelse)}"

    def _seq(self, elts: Iterable[ast.AST]) -> str:
        return self.listing([self.expr(e) for e in elts])

    def _List(self, n: ast.List) -> str:
        return self._seq(n.elts) if n.elts else "an empty list"

    _Tuple = _List

    def _Set(self, n: ast.Set) -> str:
        return self._seq(n.elts)

    def _Dict(self, n: ast.Dict) -> str:
        if not n.keys:
            return "an empty mapping"
        if any(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in n.keys):
            self.topic("category", "type", "kind", "option")
        data = all(isinstance(v, ast.Constant) or (isinstance(v, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) for e in v.elts)) or isinstance(v, ast.UnaryOp) for v in n.values)
        joint = " " if data else " set to "  # 'bad' 0.05 (a table), 'rating' set to the rating (a result)
        pairs = [f"{self.expr(k) if k is not None else 'everything else'}{joint}{self.expr(v)}"
                 for k, v in zip(n.keys, n.values)]
        return self.listing(pairs)

    def _JoinedStr(self, n: ast.JoinedStr) -> str:
        self.topic("text", "format", "message", "string", "sentence", "look", "wording")
        out = ""
        for v in n.values:
            if isinstance(v, ast.Constant):
                out += str(v.value)
                self.const(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                inner = self.expr(v.value)
                spec = v.format_spec
                if isinstance(spec, ast.JoinedStr) and len(spec.values) == 1 and isinstance(spec.values[0], ast.Constant):
                    m = re.fullmatch(r"[,]?\.(\d+)f", str(spec.values[0].value))
                    if m:
                        self.topic("round", "decimal")
                        inner += f" with {m.group(1)} decimals"
                out += f"<{inner}>"
        return f"the text {_quote(out)}"

    def _comprehension(self, n: ast.AST, elt: ast.AST | None, what: str) -> str:
        gen = n.generators[0]
        self.topic("each")
        src = self.expr(gen.iter)
        saved = dict(self.alias)
        self.loop_alias(gen.target)
        conds = [self.expr(c) for c in gen.ifs]
        if elt is None or (isinstance(elt, ast.Name) and isinstance(gen.target, ast.Name) and elt.id == gen.target.id):
            body = f"the items of {src}"
        else:
            names = [t.id for t in ast.walk(gen.target) if isinstance(t, ast.Name)]
            each = "item" if isinstance(gen.target, ast.Name) else self.listing([self.name(x) for x in names])
            body = f"{self.expr(elt)} for each {each} of {src}"
        self.alias = saved
        if conds:
            body += ", keeping only those where " + " and ".join(conds)
        return what + body

    def _ListComp(self, n: ast.ListComp) -> str:
        return self._comprehension(n, n.elt, "")

    _GeneratorExp = _ListComp

    def _SetComp(self, n: ast.SetComp) -> str:
        return self._comprehension(n, n.elt, "the distinct values of ")

    def _DictComp(self, n: ast.DictComp) -> str:
        return self._comprehension(n, n.value, "a mapping to ")

    def _key(self, n: ast.AST) -> str:
        """A sort key: ``len`` is the length, ``abs`` the size, else the words of the key."""
        if isinstance(n, ast.Name) and n.id in ("len", "abs", "str.lower"):
            return {"len": "length", "abs": "size"}[n.id]
        return self.expr(n)

    def _Lambda(self, n: ast.Lambda) -> str:
        return self.expr(n.body)

    def _Subscript(self, n: ast.Subscript) -> str:
        v, s = self.expr(n.value), n.slice
        if isinstance(s, ast.Constant) and isinstance(s.value, int) and not isinstance(s.value, bool):
            self.topic("order", "position")
            return f"{_ORDINAL.get(s.value, f'item number {s.value + 1}')} of {v}" if s.value >= -2 else \
                f"item {-s.value} from the end of {v}"
        if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and isinstance(s.operand, ast.Constant):
            k = -s.operand.value
            return f"{_ORDINAL.get(k, f'item {-k} from the end')} of {v}"
        if isinstance(s, ast.Slice):
            self.topic("part", "position")
            lo = self._const_int(s.lower)
            hi = self._const_int(s.upper)
            step = self._const_int(s.step)
            if step == -1 and s.lower is None and s.upper is None:
                return f"{v} reversed"
            if s.lower is None and hi is not None and hi < 0:
                return f"all but the last item of {v}" if hi == -1 else f"all but the last {-hi} items of {v}"
            if hi is None and s.upper is None and lo is not None and lo > 0:
                return f"all but the first item of {v}" if lo == 1 else f"{v} without its first {lo} items"
            if s.lower is None and hi is not None and hi > 0:
                self.const(hi)
                return f"the first {hi} items of {v}"
            if s.upper is None and lo is not None and lo < 0:
                self.const(-lo)
                return f"the last {-lo} items of {v}"
            if lo == 1 and hi == -1:
                return f"{v} without its first and last items"
            a = self.expr(s.lower) if s.lower is not None else "the start"
            b = self.expr(s.upper) if s.upper is not None else "the end"
            return f"the part of {v} from position {a} up to {b}"
        if isinstance(s, ast.Constant) and isinstance(s.value, str):
            return f"the {self.const(s.value)} entry of {v}"
        return f"the entry of {v} for {self.expr(s)}"

    @staticmethod
    def _const_int(n: ast.AST | None) -> int | None:
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant) \
                and isinstance(n.operand.value, int):
            return -n.operand.value
        return None

    def _Call(self, n: ast.Call) -> str:  # noqa: C901
        f, args = n.func, n.args
        kw = {k.arg: k.value for k in n.keywords if k.arg}
        a = [self.expr(x) for x in args]
        fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        module = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        if module in ("math", "np", "numpy", "statistics", "re", "random", "datetime", "time"):
            return self._module_call(module, fname, a, n)
        if isinstance(f, ast.Attribute):
            return self._method(f, fname, a, n, kw)
        if fname == "round":
            self.topic("round", "decimal", "precision")
            if len(args) > 1:
                return f"{a[0]} rounded to {a[1]} decimal place{'' if a[1] == '1' else 's'}"
            return f"{a[0]} rounded to a whole number"
        if fname == "int" and a:
            self.topic("round", "whole")
            return f"the whole-number part of {a[0]}"
        if fname == "float" and a:
            return f"{a[0]} as a number"
        if fname == "str" and a:
            self.topic("text")
            return f"{a[0]} written as text"
        if fname in ("min", "max") and a:
            consts = [x for x in args if isinstance(x, ast.Constant) or isinstance(x, ast.UnaryOp)]
            others = [x for x in args if x not in consts]
            if len(args) == 2 and len(consts) == 1:
                self.topic("threshold", "cap", "limit", "maximum" if fname == "min" else "minimum")
                bound = self.expr(consts[0])
                return f"{self.expr(others[0])} {'capped at' if fname == 'min' else 'but no less than'} {bound}"
            word = "smallest" if fname == "min" else "largest"
            self.topic("threshold", "minimum" if fname == "min" else "maximum")
            key = f" by {self._key(kw['key'])}" if "key" in kw else ""
            return f"the {word} of {self.listing(a)}{key}"
        if fname == "abs" and a:
            return f"the size of {a[0]} ignoring its sign"
        if fname == "len" and a:
            self.topic("count", "length", "number", "many")
            return f"the number of {a[0]}"
        if fname == "sum" and a:
            self.topic("total", "sum")
            return f"the total of {a[0]}"
        if fname in ("sorted", "reversed"):
            self.topic("order", "sort")
            rev = kw.get("reverse")
            desc = isinstance(rev, ast.Constant) and rev.value is True
            key = f" by {self._key(kw['key'])}" if "key" in kw else ""
            if fname == "reversed":
                return f"{a[0] if a else 'the items'} in reverse order"
            return f"{a[0] if a else 'the items'} sorted{key} from {'largest to smallest' if desc else 'smallest to largest'}"
        if fname == "set" and a:
            self.topic("duplicate", "unique")
            return f"{a[0]} without duplicates"
        if fname in ("list", "tuple", "iter") and a:
            return a[0]
        if fname in ("any", "all") and a:
            return f"{'any' if fname == 'any' else 'every one'} of {a[0]}"
        if fname == "range":
            self.topic("each")
            if len(a) == 1:
                return f"the counts up to {a[0]}"
            return f"the counts from {a[0]} up to {a[1]}" + (f" in steps of {a[2]}" if len(a) > 2 else "")
        if fname in ("enumerate", "zip"):
            return self.listing(a)
        if fname == "isinstance" and len(args) == 2:
            t = args[1]
            names = [e.id for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name)]
            self.topic("type", "edge", "invalid")
            return f"{a[0]} is {' or '.join(_TYPE_WORDS.get(x, humanise(x)) for x in names) or 'of the right type'}"
        if fname in ("ValueError", "TypeError", "Exception", "KeyError", "IndexError"):
            self.topic("error", "invalid", "edge")
            return f"an error{' saying ' + a[0] if a else ''}"
        if fname == "print":
            return f"a printout of {self.listing(a)}"
        name = self.name(fname) if fname else "a helper"
        return f"the {name} of {self.listing(a)}" if a else f"the {name}"

    def _module_call(self, module: str, fname: str, a: list[str], n: ast.Call) -> str:
        if fname in ("ceil", "floor"):
            self.topic("round", "whole")
            return f"{a[0] if a else 'it'} rounded {'up' if fname == 'ceil' else 'down'} to a whole number"
        if fname == "sqrt":
            return f"the square root of {a[0] if a else 'it'}"
        if fname == "pow" and len(a) == 2:
            return f"{a[0]} raised to the power of {a[1]}"
        if fname in ("mean", "average"):
            self.topic("average", "mean")
            return f"the average of {a[0] if a else 'the values'}"
        if fname == "median":
            return f"the median of {a[0] if a else 'the values'}"
        if module == "re":
            self.topic("pattern", "text")
            what = {"findall": "the pieces of", "sub": "the text", "match": "a match of", "search": "a match of",
                    "split": "the pieces of", "fullmatch": "a full match of"}.get(fname, "a match of")
            if fname == "sub" and len(a) >= 3:
                return f"{a[2]} with every match of the pattern {a[0]} replaced by {a[1]}"
            return f"{what} {a[-1] if a else 'the text'} matching the pattern {a[0] if a else ''}".rstrip()
        return f"the {humanise(fname)} of {self.listing(a)}"

    def _method(self, f: ast.Attribute, m: str, a: list[str], n: ast.Call, kw: dict) -> str:  # noqa: C901
        obj_node = f.value
        if m == "join" and isinstance(obj_node, ast.Constant) and isinstance(obj_node.value, str):
            self.topic("join", "separator", "format", "text", "comma" if "," in obj_node.value else "text")
            sep = obj_node.value
            between = _SEPARATORS.get(sep, _quote(sep))
            if sep and sep not in _SEPARATORS:
                self.const(sep)
            return f"{a[0] if a else 'the items'} joined with {between} between them"
        obj = self.expr(obj_node)
        if m == "get" and a:
            self.topic("lookup")
            if len(a) > 1:
                self.topic("otherwise", "default", "other")
                return f"the value in {obj} for {a[0]}, or {a[1]} when it is not listed there"
            return f"the value in {obj} for {a[0]}"
        simple = {"lower": "{o} in lower case", "upper": "{o} in upper case", "strip": "{o} with the spaces around it removed",
                  "title": "{o} with each word capitalised", "capitalize": "{o} with its first letter in upper case",
                  "isalpha": "{o} is a letter", "isdigit": "{o} is a digit", "isupper": "{o} is in upper case",
                  "islower": "{o} is in lower case", "items": "the entries of {o}", "keys": "the names in {o}",
                  "values": "the values in {o}", "copy": "a copy of {o}", "isalnum": "{o} is a letter or digit",
                  "lstrip": "{o} with the leading spaces removed", "rstrip": "{o} with the trailing spaces removed"}
        if m in ("lower", "upper", "title", "capitalize"):
            self.topic("case", "capital", "format")
        if m in simple and not (m in ("strip", "lstrip", "rstrip") and a):
            return simple[m].format(o=obj)
        if m in ("strip", "lstrip", "rstrip"):
            return f"{obj} with {a[0]} removed from its ends"
        if m == "split":
            self.topic("split", "separator")
            return f"{obj} split at {_SEPARATORS.get(self._str_const(n.args[0]), a[0])}" if a else f"the words of {obj}"
        if m in ("startswith", "endswith"):
            return f"{obj} {'starts' if m == 'startswith' else 'ends'} with {self.listing(a)}"
        if m == "replace" and len(a) >= 2:
            return f"{obj} with {a[0]} replaced by {a[1]}"
        if m in ("append", "add", "extend", "insert"):
            return f"{a[-1] if a else 'it'} is added to {obj}"
        if m == "count" and a:
            self.topic("count", "many")
            return f"how many times {a[0]} appears in {obj}"
        if m in ("index", "find"):
            self.topic("position", "order")
            return f"the position of {a[0] if a else 'it'} in {obj}"
        if m == "format":
            self.topic("format", "text")
            return f"{obj} filled in with {self.listing(a)}"
        if m == "pop":
            return f"an item taken out of {obj}"
        if m == "sort":
            self.topic("order", "sort")
            rev = kw.get("reverse")
            desc = isinstance(rev, ast.Constant) and rev.value is True
            key = f" by {self._key(kw['key'])}" if "key" in kw else ""
            return f"{obj} is sorted{key} from {'largest to smallest' if desc else 'smallest to largest'}"
        name = self.name(m)
        return f"the {name} of {obj}" + (f" with {self.listing(a)}" if a else "")

    @staticmethod
    def _str_const(n: ast.AST) -> str | None:
        return n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None


# -----------------------------------------------------------------------------------------------
# Statements -> facts
# -----------------------------------------------------------------------------------------------

def _capital(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


class _FactWriter:
    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.d = _Describer()

    def add(self, clauses: Sequence[str], main: str, topics: Iterable[str] = ()) -> None:
        text = ", ".join([*clauses, main]) if clauses else main
        text = _capital(re.sub(r"\s+", " ", text).strip()).rstrip(".") + "."
        topics = frozenset(set(self.d.topics) | set(topics))
        self.facts.append(Fact(text, topics))
        for detail in self.d.details:
            words = frozenset(w for w in re.findall(r"[a-z]+", detail.lower()))
            self.facts.append(Fact(_capital(detail) + ".", words | {"part"}))
        self.d.topics = set()
        self.d.details = []

    def target(self, t: ast.AST) -> str:
        if isinstance(t, ast.Name):
            if t.id in self.d.alias:
                return self.d.alias[t.id]
            return self.d.name(t.id) if len(t.id) <= 2 else "the " + self.d.name(t.id)
        if isinstance(t, (ast.Tuple, ast.List)):
            return self.d.listing([self.target(e) for e in t.elts])
        return self.d.expr(t)

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, clauses: list[str]) -> None:
        doc = ast.get_docstring(fn)
        if doc:
            for s in sentences(doc):
                if _prose(s):
                    self.facts.append(Fact(s if s.endswith((".", "!", "?")) else s + ".", frozenset()))
        params = [x.arg for x in fn.args.args]
        for arg, default in zip(fn.args.args[len(fn.args.args) - len(fn.args.defaults):], fn.args.defaults):
            self.d.topic("default", "otherwise", "optional")
            self.add(clauses, f"when no {humanise(arg.arg)} is given, it is {self.d.expr(default)}")
        first = len(self.facts)
        if clauses:  # a helper inside the main function
            self.d.topic("helper")
            clauses = [*clauses, f"to work out the {self.d.name(fn.name)} of {self.d.listing([humanise(p) for p in params])}"]
        self.block(fn.body, clauses)
        outs = []
        for node in sorted((n for n in ast.walk(fn) if isinstance(n, ast.Return)), key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(node, ast.Return) and self._is_str(node.value) and node.value.value not in outs:
                outs.append(node.value.value)
        if not clauses and not any(isinstance(n, (ast.If, ast.IfExp, ast.Compare, ast.Try, ast.While, ast.Raise)) or (
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max"))
                for n in ast.walk(fn)):
            self.facts.append(Fact("The same rule applies to every input; there are no special cases.",
                                   frozenset({"condition", "case", "special", "edge", "exception", "when", "if"})))
        # the last word of the function's name says what it returns ("Which zones?" -> heart_rate_zone's
        # results): the summary of its string results carries it, or else each fact about a return
        named = set(humanise(fn.name).split()[-1:])
        if len(outs) >= 3:
            listing = self.d.listing([self.d.const(v) for v in outs])
            self.add(clauses, f"the possible results are {listing}", named | {
                "category", "categories", "type", "kind", "label", "option", "possible", "result", "return", "group"})
        else:
            for j in range(first, len(self.facts)):
                f = self.facts[j]
                if "return" in f.topics:
                    self.facts[j] = Fact(f.text, f.topics | named)

    def block(self, body: Sequence[ast.stmt], clauses: list[str]) -> None:
        otherwise = False
        for i, st in enumerate(body):
            if i == 0 and isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
                continue  # docstring, handled by function()
            cl = list(clauses)
            if otherwise:
                if isinstance(st, ast.If):
                    cl.append("otherwise")
                elif isinstance(st, (ast.Return, ast.Raise)):
                    self.d.topic("otherwise", "other", "default", "else")
                    cl.append("in any other case")
            if isinstance(st, ast.If):
                self.if_chain(st, cl)
                if st.body and isinstance(st.body[-1], (ast.Return, ast.Raise)) and not st.orelse:
                    otherwise = True  # what follows runs only when that condition did not hold
                continue
            self.statement(st, cl)

    def if_chain(self, node: ast.If, clauses: list[str]) -> None:
        branches, cur = [], node
        while True:
            branches.append((cur.test, cur.body))
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                continue
            final = cur.orelse
            break
        outer = self.d.topics  # topics meant for the first fact of this chain ("otherwise" after a ladder)
        for k, (test, body) in enumerate(branches):
            self.d.topics = set()
            cond = self.d.expr(test)
            cond_topics = self.d.topics | {"condition", "case", "when"} | (outer if k == 0 else set())
            self.d.topics = set()
            cl = list(clauses)
            if k > 0 and (not cl or cl[-1] != "otherwise"):
                cl.append("otherwise")
            cl.append(f"if {cond}")
            first = len(self.facts)
            self.block(body, cl)
            for j in range(first, len(self.facts)):  # every fact of the branch is about its condition
                f = self.facts[j]
                self.facts[j] = Fact(f.text, f.topics | cond_topics)
        if final:
            self.d.topics = set()
            tail = "in any other case"
            if len(branches) == 1:
                negated = self._negate(branches[0][0])
                tail = f"if {negated}" if negated else "if that is not the case"
            cl = [c for c in clauses if c != "otherwise"]
            cl.append(tail)
            first = len(self.facts)
            self.block(final, cl)
            for j in range(first, len(self.facts)):
                f = self.facts[j]
                self.facts[j] = Fact(f.text, f.topics | {"otherwise", "other", "default", "else"})

    def statement(self, st: ast.stmt, cl: list[str]) -> None:  # noqa: C901
        d = self.d
        if isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal)):
            return
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(st, cl or ["in a helper step"])
            return
        if isinstance(st, ast.ClassDef):
            for s in st.body:
                self.statement(s, cl)
            return
        if isinstance(st, ast.Return):
            if st.value is None:
                self.add(cl, "the function stops and returns nothing", {"return", "result"})
                return
            if self._is_str(st.value) or isinstance(st.value, ast.JoinedStr):
                d.topic("category", "label", "word", "message", "text")
            what = d.expr(st.value)
            if isinstance(st.value, (ast.Compare, ast.BoolOp)) or (
                    isinstance(st.value, ast.UnaryOp) and isinstance(st.value.op, ast.Not)):
                what = f"whether {what}"  # a yes/no answer
            self.add(cl, f"the function returns {what}", {"return", "result", "output"})
            return
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            tgt_node = st.targets[0] if isinstance(st, ast.Assign) else st.target
            if st.value is None:
                return
            tgt = self.target(tgt_node)
            names = {n.id for n in ast.walk(tgt_node) if isinstance(n, ast.Name)}
            uses_self = any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(st.value))
            plural = isinstance(tgt_node, (ast.Tuple, ast.List)) or (
                isinstance(tgt_node, ast.Name) and tgt.endswith("s") and not tgt.endswith("ss"))
            verb = "becomes" if uses_self else ("are" if plural else "is")
            self.add(cl, f"{tgt} {verb} {d.expr(st.value)}")
            return
        if isinstance(st, ast.AugAssign):
            tgt = self.target(st.target)
            v = d.expr(st.value)
            verb = {ast.Add: "goes up by", ast.Sub: "goes down by", ast.Mult: "is multiplied by", ast.Div: "is divided by",
                    ast.FloorDiv: "is divided, rounding down, by", ast.Mod: "becomes its remainder after dividing by"
                    }.get(type(st.op), "changes by")
            if isinstance(st.op, ast.Add) and self._is_text(st.value):
                verb = "gets added to its end:"
            self.add(cl, f"{tgt} {verb} {v}")
            return
        if isinstance(st, ast.Raise):
            msg = d.expr(st.exc) if st.exc is not None else "an error"
            self.add(cl, f"it raises {msg}" if msg.startswith("an error") else f"it raises an error: {msg}",
                     {"error", "invalid", "edge"})
            return
        if isinstance(st, ast.Continue):
            self.add(cl, "that item is skipped", {"skip"})
            return
        if isinstance(st, ast.Break):
            self.add(cl, "it stops going through the rest", {"stop"})
            return
        if isinstance(st, ast.Expr):
            if isinstance(st.value, ast.Constant):
                return
            self.add(cl, d.expr(st.value))
            return
        if isinstance(st, (ast.For, ast.AsyncFor)):
            saved = dict(d.alias)
            src = d.expr(st.iter)
            d.loop_alias(st.target)
            tgt = self.target(st.target)
            d.topic("each")
            topics = set(d.topics)
            first = len(self.facts)
            each = f"for each {tgt[4:]} of {src}" if tgt.startswith("the ") else f"for each {tgt} of {src}"
            self.block(st.body, [*cl, each])
            for j in range(first, len(self.facts)):
                f = self.facts[j]
                self.facts[j] = Fact(f.text, f.topics | topics)
            d.alias = saved
            if st.orelse:
                self.block(st.orelse, [*cl, "after going through all of them"])
            return
        if isinstance(st, ast.While):
            self.block(st.body, [*cl, f"while {d.expr(st.test)}"])
            return
        if isinstance(st, ast.Try):
            self.block(st.body, cl)
            for h in st.handlers:
                self.block(h.body, [*cl, "if that fails"])
            self.block(st.orelse, cl)
            self.block(st.finalbody, cl)
            return
        if isinstance(st, (ast.With, ast.AsyncWith)):
            self.block(st.body, cl)
            return
        if isinstance(st, ast.If):
            self.if_chain(st, cl)
            return
        if isinstance(st, ast.Assert):
            self.add(cl, f"it insists that {d.expr(st.test)}", {"invalid", "edge", "error"})

    def _negate(self, test: ast.AST) -> str | None:
        """The words of ``not test`` for a simple comparison (``a < b`` -> ``a is at least b``)."""
        neg = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
               ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in neg:
            flipped = ast.Compare(left=test.left, ops=[neg[type(test.ops[0])]()], comparators=test.comparators)
            return self.d.expr(flipped)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.d.expr(test.operand)
        if isinstance(test, ast.Name) and test.id.startswith("is_"):
            return f"not {self.d.expr(test)}"
        if isinstance(test, (ast.Name, ast.Attribute)):
            return f"{self.d.expr(test)} is empty or missing"
        return None

    @staticmethod
    def _is_str(n: ast.AST) -> bool:
        return isinstance(n, ast.Constant) and isinstance(n.value, str)

    def _is_text(self, n: ast.AST) -> bool:
        return self.d._is_text(n)


def code_facts(source: str, main: str | None = None) -> list[Fact]:
    """Plain-words facts read off Python source (see the module docstring): comments and docstring
    sentences in prose (those holding code are left out), then one fact per statement of the main
    function, then those of the other top-level functions, each said as a helper step. The main
    function is ``main`` when the source defines it, else the last top-level function. Source that
    does not parse yields its comments only."""
    facts: list[Fact] = []
    for line in source.splitlines():
        m = re.match(r"\s*#\s*(.+)", line)
        if m and len(m.group(1).split()) >= 2 and _prose(m.group(1)):
            facts.append(Fact(m.group(1).strip().rstrip(".") + ".", frozenset()))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return facts
    writer = _FactWriter()
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    chosen = next((n for n in defs if n.name == main), defs[-1] if defs else None)
    if chosen is not None:
        writer.function(chosen, [])
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node is not chosen:
                writer.function(node, ["in a helper step"])
        elif isinstance(node, ast.ClassDef):
            for s in node.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    writer.function(s, [])
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            writer.statement(node, [])
    seen: set[str] = set()
    out = []
    for f in facts + writer.facts:
        if f.text not in seen:
            seen.add(f.text)
            out.append(f)
    return out
