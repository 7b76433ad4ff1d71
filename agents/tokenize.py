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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from colbench_env.lm.base import FINISH_REASONS, GeneratedText, finish_reason_of

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
    """

    input_ids: list[int]
    mask: list[int]
    turn_spans: list[tuple[int, int]]
    turn_ids: list[int]

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


def tokenize_trajectory(
    tokenizer,
    record: dict,
    *,
    formatter: Formatter | None = None,
    max_length: int | None = None,
    multi_turn: bool = True,
    keep_head: int = 0,
    source: str = "<trajectory>",
) -> list[TokenizedSequence]:
    """All agent turns of a trajectory, as one multi-turn sequence when possible (module docstring).

    Args:
        multi_turn: try to pack all turns into one sequence; ``False`` always gives one per turn.
        max_length: the packed sequence must fit, otherwise one sequence per turn is returned, each
            cut as in :func:`tokenize_turn`.
        keep_head: messages at the start of every context that truncation must keep
            (:func:`tokenize_turn`); :class:`ContextTooLong` when some turn cannot keep them.

    Returns:
        A list of sequences whose masks together cover every agent action exactly once.
    """
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


def as_messages(x: Any) -> Messages:
    """Accept a chat message list or a plain string (a single user message)."""
    if isinstance(x, str):
        return [{"role": "user", "content": x}]
    return list(x)
