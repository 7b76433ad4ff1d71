"""Turn-level tokenisation of ColBench trajectories, with loss masks on the agent's own tokens.

A trajectory record (official format, see :mod:`colbench_env.trajectories`) becomes a list of agent
*turns*: turn ``t`` is the pair ``(context_t, action_t)`` where

* ``action_t`` is the ``t``-th assistant entry's ``"output"`` (the raw generation, thought included),
  falling back to its ``"content"``;
* ``context_t = format_messages(task, dialogue_history[:i])`` with ``i`` the index of that entry
  (default formatter: :func:`colbench_env.prompting.record_messages`, the paper's agent prompt).

The chat template renders ``context_t`` with the generation prompt; the *completion* is what the
template adds when the action is appended as an assistant message (the action text and the
end-of-turn marker). Only completion tokens get ``mask == 1``: prompt text, simulator (human) turns,
the hidden information and padding are never trained. An action cut at ``max_new_tokens``
(``finish_reason == "length"`` on its entry, or a :class:`~colbench_env.lm.base.GeneratedText`
saying so) was never ended by the policy: the end-of-turn marker the template appends stays in the
sequence as context for the next turn but is not trained (``mask == 0``, outside the turn's span).
Training it would teach an end token the policy did not emit, and its log-prob is tiny (about -27 at
temperature 1 for SmolLM2 mid-code, -270 at PPO's sampling temperature 0.1), so PPO/GRPO ratios on
it explode and DPO/critic log-probs are dominated by it.

Multi-turn sequences: when every turn's rendered context extends the previous turn's rendered
context + completion (prefix-consistent chat formats), :func:`tokenize_trajectory` yields one
sequence holding all turns, masks covering only the assistant turns. Otherwise it yields one
sequence per turn: e.g. after a turn with a thought before ``OUTPUT:`` (the next context shows that
turn as its message only, as the reference's agent sees it, while the action trained is the raw
generation), or with a prompt that re-writes the whole history into one user message each turn; the
summed log-probability ``sum_t log pi(a_t | context_t)`` is the same either way.

Recorded token ids (token-exact training): a record made by a policy that recorded the ids it saw and
produced (each agent entry's ``tokens``, :mod:`colbench_env.lm.tokens`) is trained on those ids, not
on a re-tokenization of its text, when :func:`tokenize_trajectory` is given the fingerprint of its
tokenizer (``token_fingerprint``) and *every* agent turn of the record carries prompt and completion
ids with that fingerprint (otherwise the whole record is re-tokenized as above). Turn ``t`` is then
``(prompt_ids_t, completion_ids_t)``: the completion -- what the policy generated, its end-of-turn
token included when it sampled one, none after a generation cut at ``max_new_tokens`` -- is trained
(``mask == 1``), the prompt never (the instructions, the human's replies, earlier turns as the
template re-rendered them). The turns pack into one sequence when each turn's prompt ids start with
the previous turns' prompt + completion ids (the same test as above, on ids), else one sequence per
turn, each exactly as the policy saw it: a chat template that re-renders earlier turns (Qwen3
dropping earlier ``<think>`` blocks) gives per-turn sequences, never a context the policy did not see.
The completion is all the policy generated, also past a second ``OUTPUT:`` that the recorded
``output`` text is cut before. Re-tokenizing instead trains what the template writes: with ChatML
(SmolLM2) the ``"\n"`` after each ``<|im_end|>``, which the policy never sampled
(:func:`token_report` counts the turns whose trained tokens differ from the policy's).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch

from colbench_env.lm.base import FINISH_REASONS, GeneratedText, finish_reason_of
from colbench_env.lm.tokens import TokenRecordError, TurnTokens, history_turn_tokens

__all__ = [
    "Turn",
    "TokenizedSequence",
    "TokenizationError",
    "ContextTooLong",
    "action_text",
    "agent_turns",
    "tokenize_turn",
    "tokenize_trajectory",
    "collate",
    "default_formatter",
    "recorded_turn_tokens",
    "turn_sequence",
    "action_tokens",
    "token_report",
    "policy_token_report",
    "TokenReport",
]

Messages = list[dict]
Formatter = Callable[[dict, list], Messages]


class TokenizationError(ValueError):
    """A trajectory cannot be tokenised; the message names the trajectory and the turn."""


class ContextTooLong(TokenizationError):
    """The protected head of a context (``keep_head`` messages) plus the action exceed ``max_length``."""


def default_formatter() -> Formatter:
    """:func:`colbench_env.prompting.record_messages` (imported lazily)."""
    from colbench_env.prompting import record_messages

    return record_messages


def action_text(entry: dict) -> str:
    """The agent action of an assistant history entry: ``"output"`` (raw), else ``"content"``."""
    out = entry.get("output")
    if isinstance(out, str) and out:
        return out
    content = entry.get("content")
    if not isinstance(content, str):
        raise TokenizationError(f"assistant entry has no string 'output' or 'content': {sorted(entry)}")
    return content


@dataclass(frozen=True)
class Turn:
    """One agent decision: the chat messages it saw and the text it produced.

    Attributes:
        messages: the context (chat messages) before the action.
        action: the raw generation (a :class:`~colbench_env.lm.base.GeneratedText` with the entry's
            ``finish_reason``).
        index: position of the action in ``dialogue_history``.
        turn: 0-based agent turn number.
    """

    messages: Messages
    action: str
    index: int
    turn: int


def agent_turns(record: dict, formatter: Formatter | None = None, *, source: str = "<trajectory>") -> list[Turn]:
    """The agent turns of a trajectory record (see the module docstring)."""
    if not isinstance(record, dict) or not isinstance(record.get("task"), dict):
        raise TokenizationError(f"{source}: a trajectory must be a dict with a 'task' record")
    history = record.get("dialogue_history", [])
    if not isinstance(history, list):
        raise TokenizationError(f"{source}: field 'dialogue_history' must be a list")
    fmt = formatter or default_formatter()
    turns: list[Turn] = []
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or "role" not in entry:
            raise TokenizationError(f"{source}: field 'dialogue_history[{i}]' must be an object with a 'role'")
        if entry["role"] != "assistant":
            continue
        try:
            act = action_text(entry)
        except TokenizationError as e:
            raise TokenizationError(f"{source}: field 'dialogue_history[{i}]': {e}") from None
        reason = entry.get("finish_reason")
        if reason is not None and reason not in FINISH_REASONS:
            raise TokenizationError(f"{source}: field 'dialogue_history[{i}].finish_reason' must be 'stop' or "
                                    f"'length', got {reason!r}")
        act = GeneratedText(act, reason)
        turns.append(Turn(list(fmt(record["task"], history[:i])), act, i, len(turns)))
    return turns


@dataclass
class TokenizedSequence:
    """Token ids with a mask over the trained (agent) tokens.

    Attributes:
        input_ids: ``list[int]``.
        mask: ``list[int]`` same length; 1 on agent action tokens (labels), 0 elsewhere.
        turn_spans: ``[(start, end)]`` token ranges of each agent turn's trained completion tokens,
            in order (the whole completion, or the action text only for a generation cut at
            ``max_new_tokens``).
        turn_ids: the ``Turn.turn`` numbers of those spans.
        logprobs: a sequence of recorded ids (:func:`tokenize_trajectory` with ``token_fingerprint``):
            for each span, the log-probs its policy recorded for the turn's completion ids (as
            recorded, one per completion id: a completion cut to ``max_length`` has fewer trained
            ids than log-probs), or ``None`` when it recorded none; ``None`` for a re-tokenized
            sequence (its tokens are not the ones the log-probs belong to).
    """

    input_ids: list[int]
    mask: list[int]
    turn_spans: list[tuple[int, int]]
    turn_ids: list[int]
    logprobs: list[list[float] | None] | None = None

    def __len__(self) -> int:
        return len(self.input_ids)


def _render(tokenizer, messages: Messages, *, generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt)


def _ids(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _prompt_and_completion(tokenizer, messages: Messages, action: str) -> tuple[str, str]:
    prompt = _render(tokenizer, messages, generation_prompt=True)
    full = _render(tokenizer, list(messages) + [{"role": "assistant", "content": action}], generation_prompt=False)
    if not full.startswith(prompt):
        raise TokenizationError("the chat template does not render the context with the generation prompt as a "
                                "prefix of context + assistant message; cannot locate the action tokens")
    return prompt, full[len(prompt):]


def _completion_ids(tokenizer, completion: str, action: str) -> tuple[list[int], int]:
    """The completion's token ids and how many of them are trained: all of them, or for an action
    cut at ``max_new_tokens`` (:func:`~colbench_env.lm.base.finish_reason_of` ``== "length"``) only
    those of the action text (the end-of-turn marker after it was not generated by the policy)."""
    if finish_reason_of(action) != "length":
        ids = _ids(tokenizer, completion)
        return ids, len(ids)
    body = action.strip()
    at = completion.find(body) if body else 0
    if at < 0:
        raise TokenizationError("the chat template does not render the action verbatim; cannot tell its tokens "
                                "from the end-of-turn marker of a generation cut at max_new_tokens")
    end = at + len(body)
    head, tail = _ids(tokenizer, completion[:end]), _ids(tokenizer, completion[end:])
    return head + tail, len(head)


def tokenize_turn(tokenizer, messages: Messages, action: str, *, max_length: int | None = None,
                  keep_head: int = 0) -> TokenizedSequence:
    """One turn: ``chat_template(messages) + completion(action)``, mask on the completion tokens.

    With ``max_length``, the *context* is cut so that the action stays whole:

    * ``keep_head == 0``: from the left (oldest tokens first); an action longer than
      ``max_length`` is cut from the right;
    * ``keep_head > 0``: the first ``keep_head`` messages (e.g. the critic's instructions with the
      training-time information, and the problem) are never cut, nor is the action: the dialogue
      is cut in the *middle*, right after them (oldest dialogue tokens first), keeping the most
      recent context. When the head and the action alone exceed ``max_length``,
      :class:`ContextTooLong` is raised (the caller drops the example).
    """
    prompt, completion = _prompt_and_completion(tokenizer, messages, action)
    c_ids, trained = _completion_ids(tokenizer, completion, action)
    head_ids: list[int] = []
    if keep_head > 0 and max_length is not None:
        head = _render(tokenizer, list(messages)[:keep_head], generation_prompt=False)
        if not prompt.startswith(head):
            raise TokenizationError("the chat template does not render the first messages as a prefix of the "
                                    "context; cannot protect them from truncation")
        head_ids, p_ids = _ids(tokenizer, head), _ids(tokenizer, prompt[len(head):])
        if len(head_ids) + len(c_ids) > max_length:
            raise ContextTooLong(f"the first {keep_head} message(s) ({len(head_ids)} tokens) and the action "
                                 f"({len(c_ids)} tokens) exceed max_length={max_length}")
    else:
        p_ids = _ids(tokenizer, prompt)
    if max_length is not None and len(head_ids) + len(p_ids) + len(c_ids) > max_length:
        c_ids = c_ids[:max_length - 1] if len(c_ids) >= max_length else c_ids
        room = max_length - len(head_ids) - len(c_ids)
        p_ids = p_ids[len(p_ids) - room:] if room > 0 else []
    p_ids = head_ids + p_ids
    ids = p_ids + c_ids
    trained = min(trained, len(c_ids))
    return TokenizedSequence(ids, [0] * len(p_ids) + [1] * trained + [0] * (len(c_ids) - trained),
                             [(len(p_ids), len(p_ids) + trained)], [0])


def recorded_turn_tokens(record: dict, token_fingerprint: str | None, *,
                         source: str = "<trajectory>") -> list[TurnTokens] | None:
    """The recorded ids of every agent turn of ``record`` when each carries prompt and completion ids
    made with the tokenizer of ``token_fingerprint``; ``None`` otherwise (or when it is ``None``).

    Raises:
        TokenizationError: a malformed ``tokens`` field, naming the record and the field.
    """
    if token_fingerprint is None:
        return None
    turns = _history_tokens(record, source)
    if not turns or not all(t is not None and t.has_ids and t.fingerprint == token_fingerprint for t in turns):
        return None
    return turns


def turn_sequence(tokenizer, messages: Messages, action: str, *, max_length: int | None = None,
                  token_fingerprint: str | None = None) -> TokenizedSequence:
    """One turn's sequence: the ids its policy saw and produced when ``action`` carries them
    (a :class:`~colbench_env.lm.base.GeneratedText` whose ``tokens`` have prompt and completion ids
    with ``token_fingerprint``), cut to ``max_length`` as recorded turns are (the prompt from the
    left, a completion longer than ``max_length - 1`` from the right); else :func:`tokenize_turn` of
    ``messages`` and the action's text (e.g. SWEET-RL's candidate actions, sampled from the policy
    with their ids, or given as text)."""
    tokens = action_tokens(action, token_fingerprint)
    if tokens is not None:
        return _recorded_sequences([tokens], max_length=max_length, multi_turn=False)[0]
    return tokenize_turn(tokenizer, messages, action, max_length=max_length)


def action_tokens(action: Any, token_fingerprint: str | None) -> TurnTokens | None:
    """The :class:`~colbench_env.lm.tokens.TurnTokens` an action carries (``action.tokens``) when they
    have prompt and completion ids made with the tokenizer of ``token_fingerprint``; else ``None``."""
    tokens = getattr(action, "tokens", None)
    if (token_fingerprint is not None and isinstance(tokens, TurnTokens) and tokens.has_ids
            and tokens.fingerprint == token_fingerprint):
        return tokens
    return None


def _history_tokens(record: dict, source: str) -> list[TurnTokens | None]:
    try:
        return history_turn_tokens(record.get("dialogue_history") or [])
    except TokenRecordError as e:
        raise TokenizationError(f"{source}: {e}") from None


def _recorded_sequences(turns: Sequence[TurnTokens], *, max_length: int | None,
                        multi_turn: bool) -> list[TokenizedSequence]:
    """The sequences of recorded turns (module docstring): packed when every prompt extends the ids
    before it and the whole fits ``max_length``, else one per turn, the prompt cut from the left
    (and a completion longer than ``max_length - 1`` cut from the right)."""
    if multi_turn:
        ids: list[int] = []
        mask: list[int] = []
        spans: list[tuple[int, int]] = []
        for t in turns:
            if t.prompt_ids[:len(ids)] != ids:
                break
            new_context = t.prompt_ids[len(ids):]
            ids += new_context
            mask += [0] * len(new_context)
            spans.append((len(ids), len(ids) + len(t.completion_ids)))
            ids += t.completion_ids
            mask += [1] * len(t.completion_ids)
        else:
            if max_length is None or len(ids) <= max_length:
                return [TokenizedSequence(ids, mask, spans, list(range(len(turns))), [t.logprobs for t in turns])]
    out = []
    for k, t in enumerate(turns):
        p_ids, c_ids = list(t.prompt_ids), list(t.completion_ids)
        if max_length is not None and len(p_ids) + len(c_ids) > max_length:
            c_ids = c_ids[:max_length - 1] if len(c_ids) >= max_length else c_ids
            room = max_length - len(c_ids)
            p_ids = p_ids[len(p_ids) - room:] if room > 0 else []
        out.append(TokenizedSequence(p_ids + c_ids, [0] * len(p_ids) + [1] * len(c_ids),
                                     [(len(p_ids), len(p_ids) + len(c_ids))], [k], [t.logprobs]))
    return out


def tokenize_trajectory(
    tokenizer,
    record: dict,
    *,
    formatter: Formatter | None = None,
    max_length: int | None = None,
    multi_turn: bool = True,
    keep_head: int = 0,
    source: str = "<trajectory>",
    token_fingerprint: str | None = None,
) -> list[TokenizedSequence]:
    """All agent turns of a trajectory, as one multi-turn sequence when possible (module docstring).

    Args:
        multi_turn: try to pack all turns into one sequence; ``False`` always gives one per turn.
        max_length: the packed sequence must fit, otherwise one sequence per turn is returned, each
            cut as in :func:`tokenize_turn`.
        keep_head: messages at the start of every context that truncation must keep
            (:func:`tokenize_turn`); :class:`ContextTooLong` when some turn cannot keep them.
            Re-tokenized contexts only: with ``keep_head > 0`` recorded ids are not used.
        token_fingerprint: :func:`~colbench_env.lm.tokens.tokenizer_fingerprint` of ``tokenizer``:
            train on the ids the policy recorded when every agent turn has them with this fingerprint
            (:func:`recorded_turn_tokens`; ``formatter`` is then not used); ``None``: always
            re-tokenize the text.

    Returns:
        A list of sequences whose masks together cover every agent action exactly once.
    """
    if keep_head == 0:
        recorded = recorded_turn_tokens(record, token_fingerprint, source=source)
        if recorded is not None:
            return _recorded_sequences(recorded, max_length=max_length, multi_turn=multi_turn)
    turns = agent_turns(record, formatter, source=source)
    if not turns:
        return []
    try:
        rendered = [_prompt_and_completion(tokenizer, t.messages, t.action) for t in turns]
    except TokenizationError as e:
        raise TokenizationError(f"{source}: {e}") from None
    if multi_turn:
        packed = _pack(tokenizer, turns, rendered)
        if packed is not None and (max_length is None or len(packed) <= max_length):
            return [packed]
    out = []
    for t in turns:
        try:
            seq = tokenize_turn(tokenizer, t.messages, t.action, max_length=max_length, keep_head=keep_head)
        except ContextTooLong as e:
            raise ContextTooLong(f"{source}: agent turn {t.turn}: {e}") from None
        out.append(TokenizedSequence(seq.input_ids, seq.mask, seq.turn_spans, [t.turn]))
    return out


def _pack(tokenizer, turns: Sequence[Turn], rendered: Sequence[tuple[str, str]]) -> TokenizedSequence | None:
    """One sequence for all turns, or ``None`` when the rendered contexts are not prefix-consistent."""
    text_so_far = ""
    ids: list[int] = []
    mask: list[int] = []
    spans: list[tuple[int, int]] = []
    for turn, (prompt, completion) in zip(turns, rendered):
        if not prompt.startswith(text_so_far):
            return None
        new_context = _ids(tokenizer, prompt[len(text_so_far):])
        c_ids, trained = _completion_ids(tokenizer, completion, turn.action)
        ids += new_context
        mask += [0] * len(new_context)
        spans.append((len(ids), len(ids) + trained))
        ids += c_ids
        mask += [1] * trained + [0] * (len(c_ids) - trained)
        text_so_far = prompt + completion
    return TokenizedSequence(ids, mask, spans, [t.turn for t in turns])


def collate(sequences: Sequence[TokenizedSequence], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-pad to a batch.

    Returns:
        ``input_ids``, ``attention_mask`` ``(B, L)`` and ``loss_mask`` ``(B, L - 1)`` aligned with
        :func:`colbench.agents.losses.token_logprobs` (entry ``i`` marks label token ``i + 1``).
    """
    if not sequences:
        raise ValueError("collate: no sequences")
    L = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), L), pad_id, dtype=torch.long)
    att = torch.zeros((len(sequences), L), dtype=torch.long)
    msk = torch.zeros((len(sequences), L), dtype=torch.float32)
    for b, s in enumerate(sequences):
        n = len(s)
        ids[b, :n] = torch.tensor(s.input_ids, dtype=torch.long)
        att[b, :n] = 1
        msk[b, :n] = torch.tensor(s.mask, dtype=torch.float32)
    return {"input_ids": ids, "attention_mask": att, "loss_mask": msk[:, 1:]}


def turn_masks(sequences: Sequence[TokenizedSequence], length: int) -> list[tuple[int, int, torch.Tensor]]:
    """Per-turn label masks: ``[(row, turn_id, mask (length - 1,))]`` for every turn span."""
    out = []
    for b, s in enumerate(sequences):
        for (start, end), tid in zip(s.turn_spans, s.turn_ids):
            m = torch.zeros(length - 1)
            m[max(start - 1, 0):end - 1] = 1.0
            out.append((b, tid, m))
    return out


@dataclass
class TokenReport:
    """How the agent turns of some trajectories would be trained, against what their policy saw
    (:func:`token_report`).

    Attributes:
        turns: agent turns.
        recorded: of those, trained on the ids the policy recorded (the record carries them for
            every turn, with the trainer's tokenizer fingerprint).
        would_differ: of the ``recorded`` ones, how many re-tokenizing the text would have changed.
        same: re-tokenized turns whose trained ids equal the ids the policy recorded (another
            tokenizer fingerprint, or none, but the same tokens).
        differ: re-tokenized turns whose trained tokens differ from the policy's: other ids than
            the recorded ones, or as many tokens as the server did not count.
        unchecked: re-tokenized turns with nothing recorded to check against (no ids; the counts,
            when recorded, agree).
        first: ``{"differ" | "unchecked": "<source> agent turn k: why"}``, the first turn of each kind.
    """

    turns: int = 0
    recorded: int = 0
    would_differ: int = 0
    same: int = 0
    differ: int = 0
    unchecked: int = 0
    first: dict = field(default_factory=dict)

    @property
    def retokenized(self) -> int:
        """Turns trained on a re-tokenization of their text."""
        return self.turns - self.recorded

    @property
    def inexact(self) -> int:
        """Turns whose trained tokens are not known to be the policy's (``differ + unchecked``)."""
        return self.differ + self.unchecked

    def counts(self) -> dict:
        """The counts as a JSON object (what the pipeline keeps in a method's training metrics,
        ``metrics["tokens"]``): every attribute but :attr:`first`, plus :attr:`retokenized`."""
        return {"turns": self.turns, "recorded": self.recorded, "would_differ": self.would_differ,
                "retokenized": self.retokenized, "differ": self.differ, "same": self.same,
                "unchecked": self.unchecked}

    def refusal(self, option: str = "--strict-tokens") -> str | None:
        """What ``option`` (``colbench train --strict-tokens``, ``colbench pipeline --strict-tokens``)
        says when it refuses these turns: some would be trained on a re-tokenization that differs
        from, or cannot be checked against, what their policy saw (:attr:`inexact`); ``None`` when
        every turn is exact."""
        if not self.inexact:
            return None
        first = self.first.get("differ") or self.first.get("unchecked")
        return (f"{option}: {self.inexact} of {self.turns} agent turns would be trained on a re-tokenization of "
                "their text that differs from, or cannot be checked against, the tokens their policy saw and "
                f"produced (first: {first}); collect the trajectories with a policy that records its token ids "
                "(a local model, or a vLLM server) and this tokenizer")

    def summary(self) -> str:
        """One line: how many turns train on recorded ids, how many re-tokenized ones differ."""
        text = f"{self.turns} agent turns: {self.recorded} trained on the token ids the policy recorded"
        if self.recorded:
            text += f" (re-tokenizing their text would change {self.would_differ})"
        if self.retokenized:
            text += (f"; {self.retokenized} re-tokenized: {self.differ} differ from what the policy saw, "
                     f"{self.same} the same, {self.unchecked} unchecked (no token ids recorded)")
        return text


def _trained_turns(sequences: Sequence[TokenizedSequence]) -> dict[int, tuple[list[int], list[int]]]:
    """``{turn: (context ids before its span, its trained ids)}`` of a trajectory's sequences."""
    out = {}
    for seq in sequences:
        for (start, end), tid in zip(seq.turn_spans, seq.turn_ids):
            out[tid] = (seq.input_ids[:start], seq.input_ids[start:end])
    return out


def _difference(recorded: TurnTokens | None, context: list[int], trained: list[int]) -> str | None:
    """Why a re-tokenized turn is not what the policy saw (``None``: the same), or ``"unchecked"``."""
    if recorded is not None and recorded.has_ids:
        if context != recorded.prompt_ids:
            return f"the prompt re-tokenizes to other ids ({len(context)} tokens, the policy saw {len(recorded.prompt_ids)})"
        if trained != recorded.completion_ids:
            return (f"the completion re-tokenizes to other ids ({len(trained)} trained tokens, the policy produced "
                    f"{len(recorded.completion_ids)})")
        return None
    if recorded is not None and recorded.n_prompt is not None and recorded.n_prompt != len(context):
        return f"the prompt re-tokenizes to {len(context)} tokens, the server counted {recorded.n_prompt}"
    if recorded is not None and recorded.n_completion is not None and recorded.n_completion != len(trained):
        return f"the completion re-tokenizes to {len(trained)} trained tokens, the server counted {recorded.n_completion}"
    return "unchecked"


def token_report(tokenizer, records: Sequence[dict], formatter: Formatter | None = None, *,
                 token_fingerprint: str | None = None, sources: Sequence[str] | None = None) -> TokenReport:
    """How a trainer with ``tokenizer`` trains the agent turns of ``records``, turn by turn, against
    the ids their policy recorded (:class:`TokenReport`).

    A record is trained on its recorded ids exactly when :func:`tokenize_trajectory` with
    ``token_fingerprint`` would use them; every other turn is re-tokenized (``formatter``, no
    ``max_length``: truncation aside), and its trained tokens -- the context ids before its span and
    the span's ids, as the trainer builds them, packed or not -- are compared with what the policy
    recorded: its ids, else the counts a server reported. ``sources`` names the records in
    :attr:`TokenReport.first` (default ``<trajectory i>``).
    """
    report = TokenReport()
    for i, rec in enumerate(records):
        source = sources[i] if sources is not None else f"<trajectory {i}>"
        recorded = _history_tokens(rec, source)
        if not recorded:
            continue
        retok = _trained_turns(tokenize_trajectory(tokenizer, rec, formatter=formatter, source=source))
        exact = recorded_turn_tokens(rec, token_fingerprint, source=source) is not None
        report.turns += len(recorded)
        for k, rt in enumerate(recorded):
            why = _difference(rt, *retok[k])
            if exact:
                report.recorded += 1
                report.would_differ += why is not None
                continue
            kind = "same" if why is None else "unchecked" if why == "unchecked" else "differ"
            setattr(report, kind, getattr(report, kind) + 1)
            if kind != "same" and kind not in report.first:
                report.first[kind] = f"{source} agent turn {k}: " + (
                    "no token ids recorded" if kind == "unchecked" else why)
    return report


def policy_token_report(records: Sequence[dict], config, *, sources: Sequence[str] | None = None,
                        tokenizer: Any = None) -> TokenReport:
    """:func:`token_report` of ``records`` as a trainer with ``config`` (a
    :class:`~colbench.agents.config.TrainerConfig`) trains them: its policy's tokenizer (loaded alone,
    no model: :func:`colbench_env.lm.models.resolve_model`; or ``tokenizer``, that tokenizer already
    loaded, e.g. for several configs of one policy), its default contexts
    (:func:`~colbench.agents.config.config_formatter`), recorded ids used unless
    ``config.recorded_tokens`` is off."""
    from colbench_env.lm.models import load_tokenizer, resolve_model
    from colbench_env.lm.tokens import tokenizer_fingerprint

    from .config import config_formatter

    if tokenizer is None:
        tokenizer = load_tokenizer(resolve_model(config.policy.model_name_or_path, option="policy.model_name_or_path"))
    return token_report(tokenizer, records, config_formatter(config), sources=sources,
                        token_fingerprint=tokenizer_fingerprint(tokenizer) if config.recorded_tokens else None)


def as_messages(x: Any) -> Messages:
    """Accept a chat message list or a plain string (a single user message)."""
    if isinstance(x, str):
        return [{"role": "user", "content": x}]
    return list(x)
