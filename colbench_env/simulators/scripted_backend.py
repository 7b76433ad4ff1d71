"""An offline, deterministic backend human simulator (no LLM).

It answers the agent's last message from the task's hidden information:

1. The hidden information is split into *facts*. Plain-language hidden information (the embedded and
   generated tasks: one fact per sentence) is split into sentences. Hidden information that is code
   (official ColBench records often hold the ground-truth function itself) is turned into plain
   words by reading the code: each condition with its outcome, each named constant, each comment or
   docstring line becomes one fact ("When service_quality is 'excellent', the result is
   bill * 0.25.").
2. The message is matched to the facts by shared content words (lower-cased, crudely stemmed,
   stop-words dropped, a few synonyms folded: "price"/"cost", "percent"/"rate", ...), and by the
   identifiers of the function. The two best-matching facts form the reply.
3. A broad question ("what are your requirements?", "anything else?") gets the first facts the
   human has not told yet. A question that matches no fact gets "I don't know".
4. Requests for the code, the function body or the tests are refused: the human describes what they
   want in plain words and never pastes code or test calls.

Replies are at most two sentences and 400 characters.
"""
from __future__ import annotations

import ast
import re
from typing import Any, Sequence

from .base import BACKEND_REPLY_LIMIT, Simulator

__all__ = ["ScriptedBackendSimulator", "extract_facts", "code_to_facts"]

_STOP = set("""a an the and or but if then of to in on at for with by from as is are was were be been being do does did
i you we they he she it me my your our their this that these those what which who whom how when where why
can could should would will shall may might must have has had not no yes please tell know want like
function code python write need just so also about any some there here its it's i'm im let's lets get give
make use using much many most very really ok okay thanks thank hi hello one question""".split())

_SYNONYMS = {
    "cost": "price", "costs": "price", "fee": "price", "fees": "price", "charge": "price", "charged": "price",
    "percentage": "percent", "rate": "percent", "%": "percent", "pct": "percent",
    "decimal": "round", "decimals": "round", "rounding": "round", "rounded": "round", "precision": "round",
    "limit": "threshold", "cutoff": "threshold", "minimum": "threshold", "maximum": "threshold",
    "min": "threshold", "max": "threshold", "above": "threshold", "below": "threshold", "over": "threshold",
    "under": "threshold", "least": "threshold", "more": "threshold", "less": "threshold", "exceed": "threshold", "exceeds": "threshold",
    "sort": "order", "sorted": "order", "sorting": "order", "ordering": "order", "rank": "order",
    "ranking": "order", "first": "order", "priority": "order",
    "tied": "tie", "ties": "tie", "tiebreak": "tie", "equal": "tie",
    "empty": "edge", "none": "edge", "zero": "edge", "negative": "edge", "invalid": "edge", "missing": "edge",
    "output": "return", "returns": "return", "result": "return", "format": "return",
    "discounts": "discount", "off": "discount", "reduction": "discount",
}

_BROAD = re.compile(r"\b(requirement|requirements|rules?|details?|specifics?|specific|constraints?|preferences?|"
                    r"anything else|more about|more info|information|clarify|conditions?|what else|"
                    r"how should it work|what do you want|what exactly|expect)\b", re.I)
_CODE_REQUEST = re.compile(r"\b(paste|show|send|share|give|reveal|provide|copy|see|print)\b[^.?!]{0,40}"
                           r"\b(code|function|implementation|source|solution|tests?|test cases|ground truth|body)\b"
                           r"|\bground[ _-]?truth\b|\btest cases?\b|\bunit tests?\b", re.I)

_REFUSAL = ("I can't share any code or tests; I only know what I want in plain words. "
            "Ask me about the specific rules or numbers you need.")
_DONT_KNOW = "I don't know about that. I don't have any preference on it."


def _stem(w: str) -> str:
    for suf in ("ing", "ies", "es", "ed", "s"):
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # shipping -> shipp -> ship
                w = w[:-1]
            return w
    return w


def _split_identifier(tok: str) -> list[str]:
    parts = re.split(r"_|(?<=[a-z])(?=[A-Z])", tok)
    return [p.lower() for p in parts if p]


def _content_words(text: str) -> set[str]:
    words: set[str] = set()
    for tok in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|%", text):
        pieces = [tok.lower()] + (_split_identifier(tok) if "_" in tok or tok.lower() != tok else [])
        for p in pieces:
            p = _SYNONYMS.get(p, p)
            if p in _STOP or len(p) < 2:
                continue
            words.add(_SYNONYMS.get(_stem(p), _stem(p)))
    return words


def _sentences(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9'\"(])", text)
    return [p.strip() for p in parts if len(p.strip()) > 1]


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"^\s*def \w+\s*\(|^\s*return\b|^\s*(if|for|while) .+:\s*$", text, re.M))


def _expr(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles all parsed nodes
        return "?"


def _cond_words(test: ast.AST) -> str:
    s = _expr(test)
    for op, words in ((" >= ", " is at least "), (" <= ", " is at most "), (" == ", " is "), (" != ", " is not "),
                      (" > ", " is more than "), (" < ", " is less than "), (" not in ", " is not one of "),
                      (" in ", " is one of ")):
        s = s.replace(op, words)
    return s


def code_to_facts(source: str) -> list[str]:
    """Plain-words facts read off Python source: conditions with their outcomes, constants,
    comments and docstrings. Unparsable source yields its comment lines only."""
    facts: list[str] = []
    for line in source.splitlines():
        m = re.match(r"\s*#\s*(.+)", line)
        if m and len(m.group(1).split()) >= 2:
            facts.append(m.group(1).strip().rstrip(".") + ".")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return facts

    def outcome(body: Sequence[ast.stmt]) -> str | None:
        for st in body:
            if isinstance(st, ast.Return) and st.value is not None:
                return f"the result is {_expr(st.value)}"
            if isinstance(st, (ast.Assign, ast.AugAssign)):
                tgt = st.targets[0] if isinstance(st, ast.Assign) else st.target
                op = "=" if isinstance(st, ast.Assign) else {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=",
                                                              ast.Div: "/="}.get(type(st.op), "is updated by")
                verb = "becomes" if op == "=" else {"+=": "goes up by", "-=": "goes down by", "*=": "is multiplied by",
                                                    "/=": "is divided by"}.get(op, op)
                return f"{_expr(tgt)} {verb} {_expr(st.value)}"
        return None

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                facts.extend(_sentences(doc))
        elif isinstance(node, ast.If):
            out = outcome(node.body)
            if out:
                facts.append(f"When {_cond_words(node.test)}, {out}.")
            if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
                out = outcome(node.orelse)
                if out:
                    facts.append(f"Otherwise (when not {_cond_words(node.test)}), {out}.")
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.Dict, ast.List, ast.Tuple,
                                                                       ast.Set, ast.BinOp)):
            facts.append(f"{_expr(node.targets[0])} is {_expr(node.value)}.")
        elif isinstance(node, ast.Return) and node.value is not None and not any(
                f"the result is {_expr(node.value)}" in f for f in facts):
            facts.append(f"In the end the result is {_expr(node.value)}.")
    seen: set[str] = set()
    unique = []
    for f in facts:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique


def extract_facts(task: Any) -> list[str]:
    """The facts the human can tell, in plain words (see the module docstring)."""
    hidden = getattr(task, "hidden_information", "") or ""
    if hidden.strip() and not _looks_like_code(hidden):
        return _sentences(hidden)
    source = hidden if hidden.strip() else getattr(task, "ground_truth", "")
    return code_to_facts(source)


class ScriptedBackendSimulator(Simulator):
    """Deterministic offline human for backend tasks (see the module docstring).

    Args:
        max_facts: facts per reply (two sentences in ColBench).
    """

    kind = "backend"

    def __init__(self, max_facts: int = 2):
        if max_facts < 1:
            raise ValueError(f"max_facts must be >= 1, got {max_facts}")
        self.max_facts = max_facts
        self._facts_cache: dict[int, tuple[Any, list[str], list[set[str]]]] = {}

    def config(self) -> dict:
        return {"class": type(self).__name__, "max_facts": self.max_facts, "version": 1}

    def _facts(self, task: Any) -> tuple[list[str], list[set[str]]]:
        key = id(task)
        hit = self._facts_cache.get(key)
        if hit is None or hit[0] is not task:
            facts = extract_facts(task)
            hit = (task, facts, [_content_words(f) for f in facts])
            if len(self._facts_cache) > 4096:
                self._facts_cache.clear()
            self._facts_cache[key] = hit
        return hit[1], hit[2]

    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        message = dialogue[-1]["content"] if dialogue else ""
        if _CODE_REQUEST.search(message):
            return _REFUSAL
        facts, fact_words = self._facts(task)
        if not facts:
            return _DONT_KNOW
        told = " ".join(m["content"] for m in dialogue if m.get("role") == "user")
        q_words = _content_words(message)
        scored = []
        for i, words in enumerate(fact_words):
            overlap = len(q_words & words)
            if overlap:
                scored.append((-overlap, i))
        scored.sort()
        chosen = [i for _, i in scored[: self.max_facts]]
        if not chosen and _BROAD.search(message):
            untold = [i for i, f in enumerate(facts) if f not in told]
            chosen = (untold or list(range(len(facts))))[: self.max_facts]
        if not chosen:
            return _DONT_KNOW
        return self._compose([facts[i] for i in sorted(chosen)])

    def _compose(self, sentences: list[str]) -> str:
        reply = ""
        for s in sentences:
            s = s if s.endswith((".", "!", "?")) else s + "."
            candidate = f"{reply} {s}".strip()
            if len(candidate) > BACKEND_REPLY_LIMIT:
                if not reply:
                    reply = s[: BACKEND_REPLY_LIMIT - 1].rstrip() + "."
                break
            reply = candidate
        return reply
