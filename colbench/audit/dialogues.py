"""``colbench audit dialogues``: the simulated human's turns of recorded backend dialogues, checked
for the faults that make a failure the human's and not the agent's.

Per human turn (``role == "user"``) of each trajectory record, the scripted checks
(:func:`scripted_flags`), always:

* ``gives_code``: the turn holds code -- a fenced block or a line that reads as code
  (:func:`colbench_env.simulators.scripted_backend.code_spans`) -- or reads the ground truth out (a
  stretch of more than :data:`~colbench.audit.values.LEAK_CHARS` characters shared with it, its
  strings' contents masked: :func:`~colbench.audit.values.longest_shared_span`);
* ``contradicts_information``: the turn states a number (other than 0, 1, 2) that neither the
  hidden information nor the ground truth holds in any form (:func:`colbench.audit.tasks.conveys`:
  as written, as a percentage, ``30 percent`` off for a factor 0.7), and that the agent's message
  it answers and the request do not hold either (a human repeating the agent is not contradicting);
  the detail names the sentence of the hidden information nearest in words;
* ``unknown_but_held``: the turn says it does not know (or has no preference) while the hidden
  information holds a fact that shares at least :data:`MIN_SHARED_WORDS` content words with the
  agent's message it answers (the scripted human's own word matching:
  :func:`~colbench_env.simulators.scripted_backend.content_words`).

With a judge (``judge=``: an OpenAI-compatible server, ``colbench audit dialogues --judge-base-url``)
each human turn is also sent, with the request, the hidden information and the dialogue before it,
in the prompt :data:`JUDGE_PROMPT` (the package file ``colbench/audit/prompts/dialogue_judge.txt``),
and the JSON verdict's true fields become flags (``gives_code``, ``contradicts_information``,
``unknown_but_held``) marked ``"by": "judge"``; a reply that is not such a JSON object is counted
(``judge_errors``), never guessed.

A flag: ``{"turn": index in dialogue_history, "check", "detail", "by": "scripted" | "judge"}``.
Frontend dialogues are not audited (their human describes pictures; the checks are backend checks).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Sequence

from colbench_env.records import record_kind, task_from_record
from colbench_env.simulators.scripted_backend import code_spans, content_words, task_facts

from .tasks import ASK_CHUNK, conveys
from .values import LEAK_CHARS, longest_shared_span, masked_code

__all__ = ["DIALOGUE_CHECKS", "JUDGE_PROMPT", "MIN_SHARED_WORDS", "DialogueAudit", "scripted_flags", "audit_dialogues",
           "judge_prompt", "parse_verdict", "summary_table"]

#: check -> what a flag of it means
DIALOGUE_CHECKS = {
    "gives_code": "the human's turn holds code or reads the ground truth out",
    "contradicts_information": "the human states a value the hidden information does not hold",
    "unknown_but_held": "the human says it does not know what its hidden information holds",
}
#: a fact answers the agent's message when they share at least this many content words
MIN_SHARED_WORDS = 2
#: the judge's prompt (``str.format`` fields: problem_description, hidden_information, dialogue, turn)
JUDGE_PROMPT = resources.files("colbench.audit").joinpath("prompts", "dialogue_judge.txt").read_text(encoding="utf-8")
_JUDGE_FIELDS = {"gives_code": "gives_code", "contradicts": "contradicts_information",
                 "unknown_but_held": "unknown_but_held"}
_UNKNOWN = re.compile(r"\b(i\s+(do\s*n[o']?t|don'?t)\s+know|i'?m\s+not\s+sure|i\s+am\s+not\s+sure|no\s+idea|"
                      r"(do\s*n[o']?t|don'?t)\s+have\s+(a|any)\s+preference|no\s+preference|not\s+sure)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?!\d)(\s*(%|percent))?")


@dataclass
class DialogueAudit:
    """The audit of one trajectory record.

    Attributes:
        line: its line in the file.
        task_id: its task.
        episode_id: its ``episode_id`` (``None`` when it has none).
        human_turns: human turns checked.
        flags: ``{"turn", "check", "detail", "by"}`` per fault found.
        judge_errors: turns whose judge reply was not a verdict.
    """

    line: int
    task_id: str
    episode_id: str | None
    human_turns: int = 0
    flags: list[dict] = field(default_factory=list)
    judge_errors: int = 0

    def as_record(self) -> dict:
        return {"line": self.line, "task_id": self.task_id, "episode_id": self.episode_id,
                "human_turns": self.human_turns, "flags": list(self.flags), "judge_errors": self.judge_errors}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _nearest(sentence: str, facts: list[str], code: bool) -> tuple[int, str | None]:
    words = content_words(sentence, code)
    best = max(((len(words & content_words(f, code)), f) for f in facts), default=(0, None), key=lambda x: x[0])
    return best


def _values_of(token: str) -> list[float]:
    m = re.match(r"(-?[\d,]+(?:\.\d+)?)(\s*(%|percent))?", token)
    x = float(m.group(1).replace(",", ""))
    return [x, x / 100, round(1 - x / 100, 10), round(1 + x / 100, 10)] if m.group(2) else [x]


def scripted_flags(task: Any, dialogue: Sequence[dict]) -> list[dict]:
    """The scripted checks (module docstring) on every human turn of ``dialogue`` (a backend task's)."""
    facts, from_code = task_facts(task)
    info = task.hidden_information or ""
    known = info + "\n" + task.ground_truth
    masked = masked_code(task.ground_truth)
    flags = []
    for j, m in enumerate(dialogue):
        if m.get("role") != "user":
            continue
        text = str(m.get("content", ""))
        asked = next((str(d.get("content", "")) for d in reversed(dialogue[:j]) if d.get("role") == "assistant"), "")
        spans = code_spans(text)
        shared = longest_shared_span(text, masked)
        if spans:
            flags.append({"turn": j, "check": "gives_code", "detail": f"code in the turn: {spans[0][:120]!r}",
                          "by": "scripted"})
        elif len(shared) > LEAK_CHARS:
            flags.append({"turn": j, "check": "gives_code",
                          "detail": f"reads the ground truth out: {shared[:120]!r} ({len(shared)} characters shared)",
                          "by": "scripted"})
        for sentence in _sentences(text):
            for tok in _NUMBER.finditer(sentence):
                values = _values_of(tok.group(0))
                if values[0] in (0, 1, 2) or any(conveys(v, known) for v in values):
                    continue
                if any(conveys(v, asked) or conveys(v, task.problem_description) for v in values):
                    continue
                _, near = _nearest(sentence, facts, from_code)
                flags.append({"turn": j, "check": "contradicts_information",
                              "detail": f"states {tok.group(0).strip()!r}, which the hidden information does not hold"
                                        + (f" (nearest: {near[:160]!r})" if near else ""), "by": "scripted"})
        if _UNKNOWN.search(text) and asked:
            shared_n, fact = _nearest(asked, facts, from_code)
            if fact is not None and shared_n >= MIN_SHARED_WORDS:
                flags.append({"turn": j, "check": "unknown_but_held",
                              "detail": f"says it does not know, but its hidden information holds: {fact[:200]!r}",
                              "by": "scripted"})
    return flags


def judge_prompt(task: Any, dialogue: Sequence[dict], turn: int) -> str:
    """:data:`JUDGE_PROMPT` filled for human turn ``turn`` of ``dialogue``."""
    from colbench_env.simulators.prompts import format_dialogue

    before = [{"role": d.get("role"), "content": str(d.get("content", ""))} for d in dialogue[:turn]]
    return JUDGE_PROMPT.format(problem_description=task.problem_description, hidden_information=task.hidden_information,
                               dialogue=format_dialogue(before), turn=str(dialogue[turn].get("content", "")))


def parse_verdict(text: str) -> dict | None:
    """The judge's verdict: the first JSON object of ``text`` with the three boolean fields, else ``None``."""
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[m.start():])
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and all(isinstance(obj.get(k), bool) for k in _JUDGE_FIELDS):
            return obj
    return None


def audit_dialogues(records: Sequence[tuple[int, dict]], *, judge: Any = None, judge_max_tokens: int = 256) -> list[DialogueAudit]:
    """Audit the human turns of backend trajectory records ``(line, record)`` (module docstring).

    Args:
        judge: an :class:`~colbench_env.lm.base.LMBackend` (an
            :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`) asked about every human turn
            (greedy, ``judge_max_tokens``; :data:`~colbench.audit.tasks.ASK_CHUNK` requests in flight at
            most); ``None``: the scripted checks only.

    Raises:
        colbench_env.lm.base.BackendError: the judge's server failed.
    """
    from colbench_env.lm.base import SamplingParams

    audits, asks = [], []
    for line, rec in records:
        if record_kind(rec["task"]) != "backend":
            continue
        task = task_from_record(rec["task"], kind="backend", line=line)
        dialogue = rec.get("dialogue_history") or []
        a = DialogueAudit(line, str(rec.get("task_id") or task.task_id), rec.get("episode_id"),
                          human_turns=sum(1 for m in dialogue if m.get("role") == "user"))
        a.flags = scripted_flags(task, dialogue)
        audits.append(a)
        if judge is not None:
            asks += [(a, j, judge_prompt(task, dialogue, j)) for j, m in enumerate(dialogue) if m.get("role") == "user"]
    if asks:
        params = SamplingParams(max_new_tokens=judge_max_tokens, temperature=0.0)
        convs = [[{"role": "user", "content": p}] for _, _, p in asks]
        gens = [g for i in range(0, len(convs), ASK_CHUNK) for g in judge.generate(convs[i:i + ASK_CHUNK], params)]
        for (a, j, _), g in zip(asks, gens):
            verdict = parse_verdict(g.text)
            if verdict is None:
                a.judge_errors += 1
                continue
            for key, check in _JUDGE_FIELDS.items():
                if verdict[key]:
                    a.flags.append({"turn": j, "check": check, "detail": str(verdict.get("explanation", ""))[:300],
                                    "by": "judge"})
    for a in audits:
        a.flags.sort(key=lambda f: (f["turn"], f["by"] != "scripted"))
    return audits


def summary_table(audits: Sequence[DialogueAudit], *, judged: bool = False) -> str:
    """Per check and by whom (the judge's rows when ``judged``): the human turns and the episodes flagged."""
    turns = sum(a.human_turns for a in audits)
    lines = [f"{'check':<24}  {'by':<8}  {'turns':>5}  {'episodes':>8}", f"{'-' * 24}  {'-' * 8}  -----  --------"]
    for c in DIALOGUE_CHECKS:
        for by in ("scripted", "judge"):
            hits = [(a, f) for a in audits for f in a.flags if f["check"] == c and f["by"] == by]
            if by == "judge" and not judged:
                continue
            n_turns = len({(id(a), f["turn"]) for a, f in hits})
            n_eps = len({id(a) for a, _ in hits})
            lines.append(f"{c:<24}  {by:<8}  {n_turns:5d}  {n_eps:8d}")
    flagged = sum(1 for a in audits if a.flags)
    lines.append(f"{len(audits)} episodes, {turns} human turns; {flagged} episodes "
                 f"({100 * flagged / len(audits) if audits else 0:.1f}%) have a flagged turn")
    errors = sum(a.judge_errors for a in audits)
    if errors:
        lines.append(f"judge replies that were not a verdict: {errors}")
    return "\n".join(lines)
