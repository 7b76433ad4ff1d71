"""``colbench audit tasks``: deterministic checks of backend tasks, each failed check a *flag*.

Per task (:func:`audit_tasks`), in this order:

1. **The ground truth passes its own tests** (:data:`CHECKS` ``truth_*``): it runs on its tests twice
   in the sandbox under the reference semantics (:meth:`BackendEvaluator.run_ground_truths
   <colbench_env.evaluation.backend.BackendEvaluator.run_ground_truths>`: fresh definitions per call,
   two independent runs); a test where it does not load or raises or times out (``truth_raises``),
   returns ``None`` (``truth_none``: the reference never counts such a test) or gives different
   outputs in the two runs (``truth_nondeterministic``) is flagged. Then the ground truth is scored as
   an answer, as any answer is (blocked substrings, 1 s per call): below 1 for another reason is
   ``truth_as_answer`` (no agent could pass either).
2. **Signatures** (``signature``): the request's ``def name(params)`` (the signature sentence the
   reference appends) must be the ground truth's ``def`` -- name, parameters in order, how many have
   defaults -- and every test must call a function the ground truth defines with arguments that bind
   to its parameters.
3. **Constants the human must convey** (``constant_not_conveyed``): every number and string of the
   ground truth (:mod:`colbench.audit.code_sites`) is changed, one at a time (mutants run in the
   sandbox like the ground truth); the tests *depend* on it when some test's output changes. A
   number or compared string (a category: the outputs change without holding the string) that the
   tests depend on and that the request does not state must come from the human: it is asked the
   generic questions (:data:`GENERIC_QUESTIONS`) and, per constant, the questions an agent would
   ask about it (:func:`questions_for`: its role -- threshold, rate, amount, value -- with the words
   around it in the code, and the sentence of the human's information that holds it, the value left
   out), each alone as the first turn of a dialogue; a reply must convey the value
   (:func:`conveys`: as written, as a percentage, ``0.7`` as "30 percent" off). The questions are
   generous (the code's and the information's own words), so a flag says that even asked directly
   the human did not give the value. Unit conversions multiplying or dividing
   (:data:`UNIT_CONSTANTS`: 60, 100, 1000, ...) are not asked about. With a served human
   (``human=make_simulator("openai", ...)``) the questions go through its server. Strings that read
   as code (a regular expression, a format string) are not asked about.
4. **Formats nobody could infer** (``format_not_informed``): a rounding (``round(x, n)``, ``{x:.nf}``)
   or an output string (a string that the tests' outputs hold) that the tests depend on, and that
   neither the request nor the human's information mentions (rounding: a word of rounding and the
   digits -- ``2``, ``two``, ``cents``; ``0``: ``whole``, ``integer``, ``nearest``; a string: its
   text, case aside, for strings of three or more characters besides spaces; information that is
   the code itself -- official records -- holds the line).

Checks 3-4 run only on a ground truth that passes check 1 (a mutant is compared with it). Results:
:class:`TaskAudit` per task, :func:`summary_table`.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from colbench_env.records import BackendTask

from .code_sites import MARKER, Site, find_sites, function_parameters, mutants, spec_digits, unparsed
from .values import literal_revealed

__all__ = ["CHECKS", "GENERIC_QUESTIONS", "UNIT_CONSTANTS", "TaskAudit", "audit_tasks", "questions_for",
           "states_value", "value_forms", "conveys",
           "signature_problems", "summary_table"]

#: check -> what a flag of it means
CHECKS = {
    "truth_raises": "the ground truth does not load, raises or times out on a test",
    "truth_none": "the ground truth returns None on a test (the reference never counts it)",
    "truth_nondeterministic": "the ground truth gives different outputs on the same call in two runs",
    "truth_as_answer": "the ground truth given as the answer does not pass every test (blocked substring, 1 s limit)",
    "signature": "the request's signature, the ground truth's def and the tests' calls disagree",
    "constant_not_conveyed": "a constant the tests depend on is not in the request and the human did not give it",
    "format_not_informed": "a rounding or output text the tests pin is in neither the request nor the human's information",
}

#: questions sent to the human per call (a served human gets this many requests in flight at most)
ASK_CHUNK = 32
#: what an agent asks first, whatever the task
GENERIC_QUESTIONS = ("What should the function return?", "What numbers, rates or thresholds should I use?",
                     "What are the conditions and special cases?", "Which words, names or categories matter?",
                     "How should the result be rounded or formatted?")

#: conversions everyone knows (minutes in an hour, percent, grams in a kilogram, ...): a constant of
#: these multiplying or dividing (role ``rate``) is not asked about
UNIT_CONSTANTS = (60, 24, 7, 12, 100, 1000, 365, 3600)
_ROLE_WORDS = {"threshold": "threshold", "rate": "rate", "amount": "amount", "value": "value"}
_FRACTION_WORDS = {0.5: "half", 0.25: "quarter", 0.75: "three quarters", 1.5: "one and a half"}
_NUMBER_WORDS = {0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
                 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


@dataclass
class TaskAudit:
    """The audit of one task.

    Attributes:
        line: its position in the input (1-based).
        task_id: its id.
        flags: one ``{"check", "detail"}`` per failed check (:data:`CHECKS`); empty: clean.
        details: what each check found (``truth``, ``signature``, ``constants``, ``formats``).
    """

    line: int
    task_id: str
    flags: list[dict] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def flag(self, check: str, detail: str) -> None:
        if check not in CHECKS:
            raise ValueError(f"unknown check {check!r}")
        self.flags.append({"check": check, "detail": detail})

    def as_record(self) -> dict:
        """The JSON line of ``--out``: ``line``, ``task_id``, ``flags``, then the details."""
        return {"line": self.line, "task_id": self.task_id, "flags": list(self.flags), **self.details}


# ------------------------------------------------------------------------------------------------ values
def _plain_numbers(text: str) -> str:
    """Numbers as :func:`literal_revealed` reads them: no thousands separators (``6,000``), no
    trailing zeros (``0.20`` is ``0.2``), ``30%`` as ``30 percent``."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"(?<![\d.])(\d+\.\d+)(?![\d.])", lambda m: repr(float(m.group(1))), text)
    return re.sub(r"(\d)\s*%", r"\1 percent", text)


def states_value(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value``: :func:`colbench.audit.values.literal_revealed` on the text
    with its numbers made plain (``6,000``, ``0.20``, ``30%``), a small whole number written as a word
    (``twelve``), ``0.5`` / ``0.25`` as "half" / "quarter"; a string case aside."""
    if isinstance(value, str):
        return value.lower() in text.lower()
    plain = _plain_numbers(text)
    if literal_revealed(value, plain):
        return True
    word = _NUMBER_WORDS.get(int(value)) if float(value).is_integer() else _FRACTION_WORDS.get(value)
    return word is not None and re.search(rf"\b{word}\b", plain, re.I) is not None


def value_forms(value: Any) -> list:
    """The values whose statement conveys ``value``: itself; for a number, its magnitude (``scores[-5:]``
    is "the last 5"); for a factor near 1, its complement or excess (``0.7`` is "30 percent off",
    ``1.08`` is "8 percent on top")."""
    if isinstance(value, str) or isinstance(value, bool):
        return [value]
    forms = [value, abs(value)]
    if isinstance(value, float) and 0 < value < 2 and value != 1:
        forms.append(round(abs(1 - value), 10))
    return list(dict.fromkeys(forms))


def conveys(value: Any, text: str) -> bool:
    """Whether ``text`` conveys ``value``: :func:`states_value` of one of its :func:`value_forms`."""
    return any(states_value(v, text) for v in value_forms(value))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def questions_for(site: Site, hidden_information: str = "") -> list[str]:
    """The questions asked about a constant: with the words nearest to it in the code (a dict
    value's key, else its statement's first name), with its statement's words (``What threshold
    should I use for order total?``: its role and the words), and, when a sentence of the human's
    information conveys it, that sentence with the value left out (``What about: I tip percent for
    okay service?``; a string: with its numbers left out). The last makes the check generous: a human that holds the value is asked in its
    own words."""
    words = [w.replace("_", " ") for w in site.words]
    out = []
    if site.kind == "string":
        out.append(f"Which words or categories matter for {' '.join(words[:6])}?" if words else GENERIC_QUESTIONS[3])
    else:
        role = _ROLE_WORDS[site.role]
        if words:
            out.append(f"What {role} should I use for {words[0]}?")
            out.append(f"What {role} should I use for {' '.join(words[:6])}?")
        else:
            out.append(GENERIC_QUESTIONS[1])
    for sentence in _sentences(hidden_information):
        if conveys(site.value, sentence) and not re.search(r"^\s*(def|return|if|for|while)\b|[=:]\s*$", sentence):
            if isinstance(site.value, str):  # a name: asked about with it (generous), its numbers left out
                blank = re.sub(r"(?<![\w.])-?\d+(?:[.,]\d+)*%?(?![\w])", "", sentence)
            else:  # every number of the sentence that conveys the value goes (as written or as a percentage)
                blank = re.sub(r"(?<![\w.])-?\d+(?:[.,]\d+)*(?![\w])",
                               lambda m: "" if conveys(site.value, m.group(0)) or conveys(site.value, m.group(0) + " percent")
                               else m.group(0), sentence)
            blank = re.sub(r"\s+", " ", blank).strip()
            out.append(f"What about this: {blank.rstrip('.!?')}?")
            break
    return list(dict.fromkeys(out))


def _mentions_rounding(text: str, digits: int | None) -> bool:
    low = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    if not re.search(r"round|decimal|cent|whole|integer|nearest|precision|digit|hundredth|tenth|places", low):
        return False
    if digits is None or digits == 0:
        return bool(re.search(r"whole|integer|nearest|no decimal|\b0 decimal|zero decimal", low))
    forms = [rf"\b{digits}\b", rf"\b{_NUMBER_WORDS.get(digits, '@@')}\b"]
    forms += {1: [r"tenth", r"one decimal"], 2: [r"\bcents?\b", r"hundredth"], 3: [r"thousandth"]}.get(digits, [])
    return any(re.search(f, low) for f in forms)


# ------------------------------------------------------------------------------------------------ signature
_SIGNATURE = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(")


def _request_signature(text: str) -> ast.FunctionDef | None:
    """The last ``def name(...)`` of the request, parsed (``None`` when there is none or it does not parse)."""
    matches = list(_SIGNATURE.finditer(text))
    for m in reversed(matches):
        depth, end = 0, None
        for j in range(m.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                end = j + 1
                break
        if end is None:
            continue
        try:
            fn = ast.parse(text[m.start():end] + ": pass").body[0]
        except SyntaxError:
            continue
        if isinstance(fn, ast.FunctionDef):
            return fn
    return None


def _binds(fn: ast.FunctionDef, call: ast.Call) -> str | None:
    """Why the call's arguments do not bind to ``fn``'s parameters, else ``None``."""
    a = fn.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    n_defaults = len(a.defaults)
    if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
        return None  # *args / **kwargs at the call: not checked
    n = len(call.args)
    if n > len(positional) and not a.vararg:
        return f"{n} positional arguments for {len(positional)} parameters"
    given = set(positional[:n])
    kwonly = [p.arg for p in a.kwonlyargs]
    for k in call.keywords:
        if k.arg in given:
            return f"parameter {k.arg!r} given twice"
        if k.arg not in positional[len(a.posonlyargs):] and k.arg not in kwonly and not a.kwarg:
            return f"no parameter {k.arg!r}"
        given.add(k.arg)
    required = positional[:len(positional) - n_defaults] + [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    missing = [p for p in required if p not in given]
    return f"missing {', '.join(map(repr, missing))}" if missing else None


def signature_problems(task: BackendTask) -> tuple[list[str], dict]:
    """What disagrees between the request's signature, the ground truth's ``def`` and the tests'
    calls (``[]``: nothing), and what was compared."""
    problems: list[str] = []
    try:
        tree = ast.parse(task.ground_truth)
    except SyntaxError as e:
        return [f"the ground truth does not parse ({e.msg}, line {e.lineno})"], {}
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    req = _request_signature(task.problem_description)
    info = {"request": None if req is None else f"def {req.name}({', '.join(function_parameters(req))})",
            "ground_truth": sorted(f"def {n}({', '.join(function_parameters(f))})" for n, f in defs.items())}
    if req is None:
        problems.append("the request states no signature (def name(...))")
    elif req.name not in defs:
        problems.append(f"the request's function {req.name!r} is not defined by the ground truth "
                        f"(it defines: {', '.join(defs) or 'nothing'})")
    else:
        mine, theirs = function_parameters(req), function_parameters(defs[req.name])
        if mine != theirs:
            problems.append(f"the request's parameters ({', '.join(mine)}) are not the ground truth's ({', '.join(theirs)})")
        elif len(req.args.defaults) != len(defs[req.name].args.defaults):
            problems.append(f"the request gives {len(req.args.defaults)} parameters a default, the ground truth "
                            f"{len(defs[req.name].args.defaults)}")
    for name, call_text in task.test_cases.items():
        try:
            node = ast.parse(call_text.strip(), mode="eval").body
        except SyntaxError:
            problems.append(f"{name}: the test is not a Python expression: {call_text[:80]!r}")
            continue
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and (c.func.id in defs or (req is not None and c.func.id == req.name))]
        if not calls:
            top = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
            problems.append(f"{name}: calls {top!r}, which the ground truth does not define" if top
                            else f"{name}: calls no function the ground truth defines")
            continue
        for c in calls:
            fn = defs.get(c.func.id)
            if fn is None:
                problems.append(f"{name}: calls {c.func.id!r}, which the ground truth does not define")
                continue
            why = _binds(fn, c)
            if why:
                problems.append(f"{name}: {c.func.id}(...) does not fit the ground truth's def: {why}")
    return problems, info


# ------------------------------------------------------------------------------------------------ the audit
def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _truth_flags(audit: TaskAudit, task: BackendTask, runs: list, score: Any, plain_equal) -> bool:
    """Check 1; returns whether the ground truth passed (so that checks 3-4 can use it)."""
    names = list(task.test_cases)
    none, raised, differ = [], {}, {}
    for r in runs:
        if r.load_error is not None:
            raised.setdefault("(load)", r.load_error)
    for i, name in enumerate(names):
        outs = [r.outcomes.get(i) for r in runs]
        for o in outs:
            if o is None:
                raised.setdefault(name, "did not finish" + (f" ({runs[0].problem})" if runs[0].problem else ""))
            elif not o[0]:
                raised.setdefault(name, str(o[1]))
        if name in raised:
            continue
        if any(o[1] is None for o in outs):
            none.append(name)
        equal, _ = plain_equal(outs[0][1], outs[1][1])
        if not equal:
            differ[name] = f"{_show(outs[0][1])} then {_show(outs[1][1])}"
    audit.details["truth"] = {"tests": len(names), "runs": len(runs), "raised": raised, "none": none,
                              "nondeterministic": differ, "as_answer_reward": score.reward}
    if raised:
        first = next(iter(raised.items()))
        audit.flag("truth_raises", f"{len(raised)} of {len(names)} tests: {first[0]}: {first[1][:200]}")
    if none:
        audit.flag("truth_none", f"{len(none)} of {len(names)} tests: {', '.join(none)} "
                                 f"({task.test_cases[none[0]][:80]} returns None)")
    if differ:
        first = next(iter(differ.items()))
        audit.flag("truth_nondeterministic", f"{len(differ)} of {len(names)} tests: {first[0]}: {first[1]}")
    clean = not (raised or none or differ)
    if clean and score.reward < 1:
        audit.flag("truth_as_answer", f"reward {score.reward:.3f}: {score.reason}")
    return clean


def audit_tasks(tasks: Sequence[BackendTask], *, human: Any = None, evaluator: Any = None,
                workers: int | None = None, progress: bool = False) -> list[TaskAudit]:
    """Audit backend tasks (see the module docstring); one :class:`TaskAudit` per task, in order.

    Args:
        tasks: :class:`~colbench_env.records.BackendTask` objects.
        human: the :class:`~colbench_env.simulators.Simulator` asked about constants (default: the
            scripted backend human).
        evaluator: a :class:`~colbench_env.evaluation.backend.BackendEvaluator` with reference
            semantics (default: one made here with ``workers``, closed at the end).
        progress: report each stage on stderr.

    Raises:
        TypeError: a task that is not a backend task.
        colbench_env.simulators.SimulatorError: the human could not answer (its server failed).
    """
    from colbench_env.evaluation.backend import BackendEvaluator, plain_equal
    from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator

    tasks = list(tasks)
    for i, t in enumerate(tasks):
        if not isinstance(t, BackendTask):
            raise TypeError(f"task {i + 1}: audit_tasks checks backend tasks, got {type(t).__name__}")
    human = human if human is not None else ScriptedBackendSimulator()
    own = evaluator is None
    ev = evaluator if evaluator is not None else BackendEvaluator(workers=workers, semantics="reference")
    if ev.semantics != "reference":
        raise ValueError("the audit runs ground truths under the reference semantics; got an evaluator with "
                         f"{ev.semantics!r}")

    def say(msg: str) -> None:
        if progress:
            print(f"audit: {msg}", file=sys.stderr)

    audits = [TaskAudit(i + 1, t.task_id or str(i + 1)) for i, t in enumerate(tasks)]
    try:
        for a, t in zip(audits, tasks):
            problems, info = signature_problems(t)
            a.details["signature"] = info
            for p in problems:
                a.flag("signature", p)
        say(f"{len(tasks)} ground truths, run twice")
        runs = [ev.run_ground_truths(tasks), ev.run_ground_truths(tasks)]
        say("each ground truth scored as an answer")
        scores = ev.score_many([(t, t.ground_truth) for t in tasks])
        clean = [_truth_flags(a, t, [runs[0][i], runs[1][i]], scores[i], plain_equal)
                 for i, (a, t) in enumerate(zip(audits, tasks))]
        _constants_and_formats(audits, tasks, clean, runs[0], ev, human, plain_equal, say)
    finally:
        if own:
            ev.close()
    return audits


def _changed(base: Any, res: Any, n: int, plain_equal) -> tuple[bool, bool]:
    """(some test's output changed, some changed output holds :data:`MARKER`)."""
    changed = marked = False
    if res.load_error is not None:
        return True, False
    for i in range(n):
        b, r = base.outcomes.get(i), res.outcomes.get(i)
        if r is None or b is None or b[0] != r[0] or not plain_equal(b[1], r[1])[0]:
            changed = True
            if r is not None and r[0] and MARKER in repr(r[1]):
                marked = True
    return changed, marked


def _constants_and_formats(audits: list[TaskAudit], tasks: list[BackendTask], clean: list[bool], base_runs: list,
                           ev: Any, human: Any, plain_equal, say) -> None:
    """Checks 3 and 4 (module docstring) on the tasks whose ground truth passed check 1."""
    programs, owners = [], []  # (task index, site or None for the unparsed original)
    sites_of: dict[int, list[Site]] = {}
    for k, (t, ok) in enumerate(zip(tasks, clean)):
        if not ok:
            audits[k].details["constants"] = audits[k].details["formats"] = "not checked: the ground truth fails check 1"
            continue
        sites_of[k] = find_sites(t.ground_truth)
        programs.append(unparsed(t.ground_truth))
        owners.append((k, None))
        for s in sites_of[k]:
            for code in mutants(t.ground_truth, s):
                programs.append(code)
                owners.append((k, s))
    say(f"{len(programs)} mutants of {len(sites_of)} ground truths")
    results = ev.run_ground_truths([BackendTask(t.problem_description, code, t.test_cases, t.hidden_information,
                                                t.task_id) for code, (k, _) in zip(programs, owners)
                                    for t in [tasks[k]]])
    base, effect = {}, {}
    for (k, s), res in zip(owners, results):
        if s is None:
            base[k] = res
    for (k, s), res in zip(owners, results):
        if s is None:
            continue
        changed, marked = _changed(base[k], res, len(tasks[k].test_cases), plain_equal)
        d, m = effect.get(id(s), (False, False))
        effect[id(s)] = (d or changed, m or marked)
    asks: dict[int, list[tuple[Site, str, dict]]] = {}
    for k, sites in sites_of.items():
        t, a = tasks[k], audits[k]
        if _changed(base_runs[k], base[k], len(t.test_cases), plain_equal)[0]:
            # the unparsed original does not behave as the original: its mutants say nothing
            a.details["constants"] = a.details["formats"] = "not checked: the unparsed ground truth behaves differently"
            continue
        a.details["constants"], a.details["formats"] = [], []
        seen: set = set()
        info = t.problem_description + "\n" + t.hidden_information
        for s in sites:
            depends, marked = effect.get(id(s), (False, False))
            key = (s.kind, repr(s.value))
            if not depends or key in seen:  # one entry per value (its first site the tests depend on)
                continue
            seen.add(key)
            entry = {"kind": s.kind, "value": s.value, "line": s.line, "code": s.source}
            if s.kind in ("round", "spec") or (s.kind == "string" and marked):
                if s.kind == "string" and len(s.value.replace(" ", "")) < 3:
                    continue
                digits = s.value if s.kind == "round" else spec_digits(s.value) if s.kind == "spec" else None
                entry["informed"] = (s.source in info  # information that is the code itself holds it
                                     or (states_value(s.value.strip(), info) if s.kind == "string"
                                         else _mentions_rounding(info, digits)))
                a.details["formats"].append(entry)
                if not entry["informed"]:
                    what = (f"the exact text {s.value!r}" if s.kind == "string"
                            else f"rounding to {digits if digits is not None else 0} decimal places")
                    a.flag("format_not_informed", f"line {s.line} ({s.source[:80]}): the tests pin {what}, which "
                                                  "neither the request nor the human's information mentions")
                continue
            if s.kind == "number" and s.role == "rate" and s.value in UNIT_CONSTANTS:
                continue  # a unit conversion
            if s.kind == "string" and re.search(r"[\[\]\\{}()^$*?|%]", s.value):
                continue  # a pattern or a format string: code, not a name the human could say
            entry["stated"] = conveys(s.value, t.problem_description)
            entry["in_information"] = conveys(s.value, t.hidden_information)
            a.details["constants"].append(entry)
            if not entry["stated"]:
                asks.setdefault(k, []).append((s, questions_for(s, t.hidden_information), entry))
    _ask_human(audits, tasks, asks, human, say)


def _ask_human(audits: list[TaskAudit], tasks: list[BackendTask], asks: dict[int, list[tuple[Site, list, dict]]],
               human: Any, say) -> None:
    """Ask the human each task's generic questions and its constants' questions (each alone, as the
    first turn of a dialogue); record per constant whether a reply conveyed it (its own questions'
    first), and flag those no reply conveyed."""
    items, where = [], []
    for k, todo in asks.items():
        for q in dict.fromkeys([*GENERIC_QUESTIONS, *(q for _, qs, _ in todo for q in qs)]):
            items.append((tasks[k], [{"role": "assistant", "content": q}], None))
            where.append((k, q))
    if not items:
        return
    say(f"{len(items)} questions to the human ({human.identity().get('kind')})")
    replies = [r for i in range(0, len(items), ASK_CHUNK) for r in human.reply_batch(items[i:i + ASK_CHUNK])]
    answers: dict[int, dict[str, str]] = {}
    for (k, q), r in zip(where, replies):
        answers.setdefault(k, {})[q] = r
    for k, todo in asks.items():
        got = answers[k]
        for s, qs, entry in todo:
            hit = next((x for x in [*qs, *got] if conveys(s.value, got[x])), None)
            entry.update(questions=qs, replies=[got[q] for q in qs], conveyed=hit is not None)
            if hit is not None and hit not in qs:
                entry["conveyed_by"] = hit
            if hit is None:
                where_ = "its information holds it" if entry["in_information"] else "its information does not hold it"
                audits[k].flag("constant_not_conveyed",
                               f"{_show(s.value)} (line {s.line}: {s.source[:80]}): the tests depend on it, the request "
                               f"does not state it, and the human did not give it ({where_}; asked {qs[0]!r}: "
                               f"{got[qs[0]][:120]!r})")
        audits[k].details["human"] = human.identity()


def summary_table(audits: Sequence[TaskAudit]) -> str:
    """A plain-text table: per check, the tasks it flagged; then the tasks with any flag."""
    n = len(audits)
    width = max(len(c) for c in CHECKS)
    lines = [f"{'check':<{width}}  tasks flagged", f"{'-' * width}  -------------"]
    for c in CHECKS:
        k = sum(1 for a in audits if any(f["check"] == c for f in a.flags))
        lines.append(f"{c:<{width}}  {k:5d} ({100 * k / n if n else 0:.1f}%)")
    k = sum(1 for a in audits if a.flags)
    lines.append(f"{'any':<{width}}  {k:5d} of {n} tasks ({100 * k / n if n else 0:.1f}%)")
    return "\n".join(lines)
