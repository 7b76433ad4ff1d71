"""An offline, deterministic backend human simulator (no LLM).

It answers the agent's last message from the task's hidden information:

1. The hidden information is split into *facts*. Plain-language hidden information (the embedded and
   generated tasks: one fact per sentence) is split into sentences. Hidden information that is code
   (official ColBench records hold the ground-truth function itself) is told in plain words by
   :mod:`.code_words`: each constant with what it is for, each condition as a sentence with its
   outcome, arithmetic in words, what is returned and when, rounding and formatting, the string
   values the function outputs. No code span is read out ("If service is 'excellent', the function
   returns 25 percent of bill.").
2. The message is matched to the facts by shared content words (lower-cased, crudely stemmed,
   stop-words dropped, a few synonyms folded: "price"/"cost", "percent"/"rate", ...). On text facts
   the two facts sharing most words form the reply (the behaviour recorded runs were made with). On
   code facts each fact also carries topics (identifier words, string values, role words such as
   "threshold", "round", "otherwise", "category") and numbers; words count by how specific they are
   (idf), facts already told count a tenth, and a second fact joins only when it is at least half as
   relevant as the first: the reply answers the question that was asked, and a different question
   gets a different answer.
3. A broad question ("what are your requirements?", "anything else?") that matches nothing gets the
   first facts the human has not told yet. A question that matches no fact gets "I don't know".
4. Requests for the code, the function body or the tests are refused: the human describes what they
   want in plain words and never pastes code or test calls. The agent's own code (a draft with a
   usage example) and its offers ("I can provide a function") are not requests (:func:`asks_for_code`).
5. ``volunteer`` (default True) decides what a message that asks nothing gets (an answer attempt, a
   plan): with True the facts its words touch, as a person corrects a draft; with False only
   :data:`NO_QUESTION_REPLY`, as the reference simulator's prompt says ("only answer questions").

Replies are at most two sentences and 400 characters.
"""
from __future__ import annotations

import math
import re
from typing import Any, Sequence

from .base import BACKEND_REPLY_LIMIT, Simulator
from .code_words import Fact, code_facts, sentences

__all__ = ["ScriptedBackendSimulator", "extract_facts", "task_facts", "content_words", "code_spans", "code_to_facts",
           "asks_something", "asks_for_code",
           "reply_version", "NO_QUESTION_REPLY", "VERSION", "UNRECORDED_VERSION"]

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

#: More folds for facts read off code (the prose path keeps the map above unchanged, so replies on
#: prose hidden information stay what recorded runs saw).
_CODE_SYNONYMS = {**_SYNONYMS, "percentages": "percent", "rates": "percent", "smallest": "threshold",
                  "lowest": "threshold", "largest": "threshold", "highest": "threshold", "cap": "threshold",
                  "capped": "threshold"}

_BROAD = re.compile(r"\b(requirement|requirements|rules?|details?|specifics?|specific|constraints?|preferences?|"
                    r"anything else|more about|more info|information|clarify|conditions?|what else|"
                    r"how should it work|what do you want|what exactly|expect)\b", re.I)
# what asking for the code or the tests looks like (see :func:`asks_for_code`)
_HAND_OVER = "paste|show|send|share|give|reveal|provide|copy"
_CODE_OBJECT = (r"[^.?!]{0,40}?\b(code|function|implementation|source|solution|snippet|tests?|test cases?|"
                r"ground[ _-]?truth|body)\b")
_GIVE = re.compile(rf"\b({_HAND_OVER}|print(?!\s*\())\b{_CODE_OBJECT}", re.I)
_RECEIVE = re.compile(r"\b((can|could|may|might) (i|we) (see|have|get|look at)|(i|we)('d| would)? (like|want|need|wish) "
                      rf"to (see|have|get|look at)|let me (see|have|look at))\b{_CODE_OBJECT}", re.I)
_SECRET = re.compile(r"\b(ground[ _-]?truth|test cases?|unit tests?|hidden tests?)\b", re.I)
#: the speaker's own doing ("I can provide the function", "would you like me to show the code")
_SELF = re.compile(r"\b(i|i'll|i'd|i'm|i've|i will|we|we'll|let me|me to)\b((?!\byou\b)[^,;:]){0,30}$", re.I)
#: a sentence that asks the human for something
_ADDRESSED = re.compile(r"\?\s*$|\bplease\b|\b(can|could|would|will|won't|do) you\b|"
                        r"\byou (can|could|may|might|should)\b|\b(need|want|like) you to\b", re.I)
_IMPERATIVE = re.compile(rf"^\W*((just|simply|now|so|then|and|ok|okay)\W+)*({_HAND_OVER}|print)\b", re.I)
_FENCED = re.compile(r"```.*?(```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_CODE_LINE = re.compile(r"^(\s*(def |class |return\b|print\(|import |from \S+ import |>>>|#)|( {4}|\t)\S).*$", re.M)


def asks_for_code(message: str) -> bool:
    """Whether ``message`` asks the human for the code, the function body or the tests.

    Code in the message (fenced blocks, inline spans, lines that read as code) is not read: a draft's
    ``print(f(1))`` asks nothing. A sentence asks for code when a verb of handing over ("paste",
    "show", "share", "provide" ...) with code, a function, a solution or tests as its object is
    addressed to the human (a question, "please", "can you", "you could", the imperative, "show me"),
    and is not the speaker's own doing ("I can provide a function", "would you like me to share the
    code?"); or when it asks to see them ("can I see the code?"); or when a question or request names
    the ground truth, the test cases or the unit tests."""
    text = _CODE_LINE.sub(" ", _INLINE_CODE.sub(" ", _FENCED.sub(" ", message)))
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if _RECEIVE.search(sentence):
            return True
        addressed = bool(_ADDRESSED.search(sentence) or _IMPERATIVE.search(sentence))
        if not addressed:
            continue
        for m in (*_GIVE.finditer(sentence), *_SECRET.finditer(sentence)):
            if not _SELF.search(sentence[: m.start()]):
                return True
    return False


_REFUSAL = ("I can't share any code or tests; I only know what I want in plain words. "
            "Ask me about the specific rules or numbers you need.")
_DONT_KNOW = "I don't know about that. I don't have any preference on it."
_WHAT_IF = re.compile(r"\bwhat if\b|\bwhat happens\b|\bin case\b|\bsuppose\b|\bcases?\b", re.I)
#: Version of the replies (in :meth:`ScriptedBackendSimulator.config`; a pipeline's config.json records
#: it): 3 reads code out of messages before deciding whether they ask for code (version 2 refused a
#: draft whose usage example was ``print(f(1))`` followed by "This function", and offers such as
#: "I can provide a function": 126 of 14,014 agent turns of the committed SmolLM2 episodes were refused,
#: most of them such drafts and offers).
VERSION = 3
#: What a run recorded before the version was (versions 1 and 2 were not recorded) counts as.
UNRECORDED_VERSION = "2 or earlier"


def reply_version(simulator: str) -> int | None:
    """The reply version a backend run records for its human ``simulator`` (a built-in name):
    :data:`VERSION` for ``"scripted"``; ``None`` for any other (an LLM human's settings are its
    simulator fields, its prompt version is in its cache keys)."""
    return VERSION if simulator == "scripted" else None
#: The reply of a ``volunteer=False`` human to a message that asks nothing.
NO_QUESTION_REPLY = "Okay. Ask me if there is anything you need to know about what I want."
#: A second fact joins a reply on code facts only when it scores at least this share of the best.
_SECOND_FACT_SHARE = 0.5
#: A fact already told in the dialogue scores this share of its relevance.
_TOLD_WEIGHT = 0.1


def _stem(w: str, code: bool = False) -> str:
    for suf in ("ing", "ies", "es", "ed", "s"):
        if code and suf == "es" and not re.search(r"(s|x|z|ch|sh)es$", w):
            continue  # on code facts "zones" -> "zone" (by the plain "s" rule), "boxes" -> "box"
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # shipping -> shipp -> ship
                w = w[:-1]
            return w
    return w


def _split_identifier(tok: str) -> list[str]:
    parts = re.split(r"_|(?<=[a-z])(?=[A-Z])", tok)
    return [p.lower() for p in parts if p]


def _content_words(text: str, code: bool = False) -> set[str]:
    """Lower-cased, stemmed content words with synonyms folded; ``code=True`` for facts read off code
    and the questions matched to them (a few more folds, a stemmer that keeps "zones" -> "zone")."""
    synonyms = _CODE_SYNONYMS if code else _SYNONYMS
    words: set[str] = set()
    for tok in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|%", text):
        pieces = [tok.lower()] + (_split_identifier(tok) if "_" in tok or tok.lower() != tok else [])
        for p in pieces:
            p = synonyms.get(p, p)
            if p in _STOP or len(p) < 2:
                continue
            stem = _stem(p, code)
            words.add(synonyms.get(stem, stem))
    return words


def _numbers(text: str) -> set[str]:
    return {"#" + n for n in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", text)}


def _sentences(text: str) -> list[str]:
    return sentences(text)


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"^\s*def \w+\s*\(|^\s*return\b|^\s*(if|for|while) .+:\s*$", text, re.M))


_ASKS = re.compile(r"\?|(^|[.!:;\n]\s*)(what|which|how|when|where|why|who|whom|whose|should|shall|do|does|did|is|are|"
                   r"can|could|would|will|may|tell me|let me know|please (tell|describe|explain|list|specify|confirm|"
                   r"clarify|say|share))\b|\b(tell me|let me know|can you (tell|say|confirm|describe|explain)|"
                   r"could you (tell|say|confirm|describe|explain)|i('d| would) like to know|i (want|need) to know|"
                   r"wondering)\b", re.I)


def asks_something(message: str) -> bool:
    """Whether ``message`` asks the human anything (a question mark, a sentence opening with a
    question word or an auxiliary verb, or "tell me" / "let me know" / "could you explain" ...)."""
    return bool(_ASKS.search(message))


def code_to_facts(source: str) -> list[str]:
    """Plain-words facts read off Python source (:func:`~.code_words.code_facts`), as sentences.
    Unparsable source yields its comment lines only."""
    return [f.text for f in code_facts(source)]


def _task_facts(task: Any) -> tuple[list[Fact], bool]:
    hidden = getattr(task, "hidden_information", "") or ""
    if hidden.strip() and not _looks_like_code(hidden):
        return [Fact(s) for s in _sentences(hidden)], False
    source = hidden if hidden.strip() else getattr(task, "ground_truth", "")
    signature = re.search(r"\bdef\s+(\w+)\s*\(", getattr(task, "problem_description", "") or "")
    return code_facts(source, signature.group(1) if signature else None), True


def task_facts(task: Any) -> tuple[list[str], bool]:
    """The facts the human can tell (:func:`extract_facts`) and whether they were read off code (then
    match questions to them with ``content_words(..., code=True)``)."""
    facts, from_code = _task_facts(task)
    return [f.text for f in facts], from_code


def content_words(text: str, code: bool = False) -> set[str]:
    """The content words the human matches a question to its facts with (lower-cased, stemmed,
    stop-words dropped, synonyms folded; ``code``: as for facts read off code)."""
    return _content_words(text, code)


def code_spans(text: str) -> list[str]:
    """The code in ``text``: fenced blocks and lines that read as code (``def``, ``return``,
    ``import``, ``print(``, an indented line, ...), as :func:`asks_for_code` skips them."""
    spans = [m.group(0) for m in _FENCED.finditer(text)]
    rest = _FENCED.sub(" ", text)
    return spans + [m.group(0).strip() for m in _CODE_LINE.finditer(rest) if m.group(0).strip()]


def extract_facts(task: Any) -> list[str]:
    """The facts the human can tell, in plain words (see the module docstring)."""
    return [f.text for f in _task_facts(task)[0]]


class ScriptedBackendSimulator(Simulator):
    """Deterministic offline human for backend tasks (see the module docstring).

    Args:
        max_facts: facts per reply (two sentences in ColBench).
        volunteer: when True (the default), a message that asks nothing (an answer attempt, a plan)
            still gets the facts that its words touch, as a person would correct a draft that goes
            against what they want; when False, a fact is revealed only in reply to a question about
            it, as the reference's simulator prompt says ("only answer questions"), and a message
            without a question gets :data:`NO_QUESTION_REPLY`.
    """

    kind = "backend"
    batched = False  # pure and thread-safe: rollout episodes call it from their own threads

    def __init__(self, max_facts: int = 2, volunteer: bool = True):
        if not isinstance(max_facts, int) or isinstance(max_facts, bool) or max_facts < 1:
            raise ValueError(f"max_facts must be an integer >= 1, got {max_facts!r}")
        if not isinstance(volunteer, bool):
            raise ValueError(f"volunteer must be True or False, got {volunteer!r}")
        self.max_facts = max_facts
        self.volunteer = volunteer
        self._facts_cache: dict[int, tuple] = {}

    def config(self) -> dict:
        return {"class": type(self).__name__, "max_facts": self.max_facts, "volunteer": self.volunteer, "version": VERSION}

    def identity(self) -> dict:
        """``kind`` scripted, its reply :data:`VERSION` (and ``volunteer``, ``max_facts``)."""
        return {**super().identity(), "kind": "scripted", "version": VERSION, "volunteer": self.volunteer,
                "max_facts": self.max_facts}

    def _facts(self, task: Any) -> tuple[list[Fact], list[set[str]], bool, dict[str, float], list[float]]:
        key = id(task)
        hit = self._facts_cache.get(key)
        if hit is None or hit[0] is not task:
            facts, from_code = _task_facts(task)
            words = [_content_words(f.text, from_code) | _content_words(" ".join(sorted(f.topics)), from_code)
                     for f in facts]
            if from_code:  # numbers are specific on code facts ("What if I am above 85 percent?")
                words = [ws | _numbers(f.text) for ws, f in zip(words, facts)]
            df: dict[str, int] = {}
            for ws in words:
                for w in ws:
                    df[w] = df.get(w, 0) + 1
            idf = {w: math.log((len(facts) + 1) / n) + 0.1 for w, n in df.items()}
            mean = sum(len(ws) for ws in words) / max(len(words), 1)
            norms = [0.5 + 0.5 * len(ws) / mean if mean else 1.0 for ws in words]
            hit = (task, facts, words, from_code, idf, norms)
            if len(self._facts_cache) > 4096:
                self._facts_cache.clear()
            self._facts_cache[key] = hit
        return hit[1], hit[2], hit[3], hit[4], hit[5]

    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        message = dialogue[-1]["content"] if dialogue else ""
        if asks_for_code(message):
            return _REFUSAL
        if not self.volunteer and not asks_something(message):
            return NO_QUESTION_REPLY
        facts, fact_words, from_code, idf, norms = self._facts(task)
        if not facts:
            return _DONT_KNOW
        told = " ".join(m["content"] for m in dialogue if m.get("role") == "user")
        q_words = _content_words(message, from_code)
        if from_code:
            q_words |= _numbers(message)
            if _WHAT_IF.search(message):
                q_words.add("condition")
            chosen = self._choose_weighted(facts, fact_words, idf, norms, q_words, told)
            if all(facts[i].text in told for i in chosen) and _BROAD.search(message):
                # a broad question whose matches were all told (or that matches nothing) gets untold facts
                untold = [i for i, f in enumerate(facts) if f.text not in told]
                chosen = untold[: self.max_facts] or chosen or list(range(len(facts)))[: self.max_facts]
            if not chosen:
                return _DONT_KNOW
            reply = self._compose([facts[i].text for i in chosen])
            if all(facts[i].text in told for i in chosen):  # nothing new answers it: say so
                reply = self._compose(["As I said, " + reply[:1].lower() + reply[1:]])
            return reply
        else:
            scored = sorted((-len(q_words & words), i) for i, words in enumerate(fact_words) if q_words & words)
            chosen = [i for _, i in scored[: self.max_facts]]
        if not chosen and _BROAD.search(message):
            untold = [i for i, f in enumerate(facts) if f.text not in told]
            chosen = (untold or list(range(len(facts))))[: self.max_facts]
        if not chosen:
            return _DONT_KNOW
        return self._compose([facts[i].text for i in sorted(chosen)])

    def _choose_weighted(self, facts: list[Fact], fact_words: list[set[str]], idf: dict[str, float],
                         norms: list[float], q_words: set[str], told: str) -> list[int]:
        """Facts read off code, most relevant first: each question word counts by how specific it is
        to few facts (idf), a long fact counts a little less (as BM25 does), facts already told count
        a tenth (so a new question moves on to new facts), and a second fact joins only when it is at
        least half as relevant as the first (so different questions get different answers)."""
        scored = []
        for i, words in enumerate(fact_words):
            score = math.fsum(idf[w] for w in q_words & words) / norms[i]  # fsum: the same whatever the set order
            if score > 0:
                if facts[i].text in told:
                    score *= _TOLD_WEIGHT
                scored.append((-score, i))
        if not scored:
            return []
        scored.sort()
        best = -scored[0][0]
        return [i for s, i in scored[: self.max_facts] if -s >= _SECOND_FACT_SHARE * best]

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
