"""studies/frontend_small/pages.py against hand-counted episodes."""
import json

import pytest

from studies.frontend_small import pages

PAGE = "<html><body><nav class='bg-red-500'>Shop</nav></body></html>"


def _rec(reward, turns, answer, hidden=("headline",)):
    task = {"generator": {"facts": [{"name": h} for h in hidden]}} if hidden else {}
    return {"task": task, "reward": reward, "answer": answer,
            "dialogue_history": [t for pair in turns for t in pair]}


def _ask(text="What colour?", reply="Red."):
    return ({"role": "assistant", "content": text, "finish_reason": "stop"}, {"role": "user", "content": reply})


def _answer(text, finish="stop"):
    return ({"role": "assistant", "content": text, "finish_reason": finish},)


def _write(seed_dir, method, records, config=None):
    (seed_dir / "eval").mkdir(parents=True, exist_ok=True)
    (seed_dir / "eval" / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if config is not None:
        (seed_dir / "config.json").write_text(json.dumps(config))


def test_columns_are_counted_as_by_hand(tmp_path):
    s0, s1 = tmp_path / "seed-0", tmp_path / "seed-1"
    cut = PAGE[:30]
    _write(s0, "zero-shot", [
        _rec(0.8, [_ask(), _answer("I WANT TO ANSWER: " + PAGE)], PAGE),              # asked, page
        _rec(0.0, [_ask(), _answer("I WANT TO ANSWER: " + cut, "length")], cut),      # asked, cut, no page
        _rec(0.5, [_answer("I WANT TO ANSWER: <body>x</body>")], "<body>x</body>", ("accent", "background")),
    ], config={"methods": ["rft", "mt-dpo"]})
    _write(s0, "mt-dpo", [_rec(0.6, [_ask(), _answer(PAGE)], PAGE)] * 3)
    _write(s1, "zero-shot", [_rec(0.2, [_ask(), _answer(PAGE)], PAGE, hidden=())])
    _write(s1, "mt-dpo", [_rec(0.0, [_ask(), _answer("no page here")], "no page here")])
    _write(s0, "rft", [_rec(1.0, [_ask(), _answer(PAGE)], PAGE)])  # only in seed-0: left out

    report = pages.analyse([s0, s1])
    assert list(report["methods"]) == ["zero-shot", "mt-dpo"]
    zs = report["methods"]["zero-shot"]["pooled"]
    assert zs["episodes"] == 4
    assert zs["asked_pct"] == pytest.approx(75.0)          # 3 of 4 asked first
    assert zs["page_pct"] == pytest.approx(75.0)           # the cut page holds no </html>
    assert zs["cut_pct"] == pytest.approx(25.0)
    assert zs["similarity_pct"] == pytest.approx(100 * (0.8 + 0.0 + 0.5 + 0.2) / 4)
    assert zs["page_similarity_pct"] == pytest.approx(100 * (0.8 + 0.5 + 0.2) / 3)
    dpo = report["methods"]["mt-dpo"]
    assert dpo["pooled"]["page_pct"] == pytest.approx(75.0)
    assert dpo["per_seed"]["seed-1"] == {"episodes": 1, "asked_pct": 100.0, "page_pct": 0.0, "cut_pct": 0.0,
                                         "similarity_pct": 0.0, "page_similarity_pct": None}
    assert report["methods"]["zero-shot"]["by_hidden_fact"] == {
        "(none recorded)": {"episodes": 1, "similarity_pct": pytest.approx(20.0)},
        "accent+background": {"episodes": 1, "similarity_pct": pytest.approx(50.0)},
        "headline": {"episodes": 2, "similarity_pct": pytest.approx(40.0)}}
    text = pages.markdown(report)
    assert "| mt-dpo | - | - | 45.0 (4) |" in text
    assert "| zero-shot | 4 | 75.0 | 75.0 | 25.0 | 37.5 | 50.0 |" in text
    assert "| mt-dpo | 100.0 / 60.0 | 0.0 / 0.0 |" in text


def test_cli_writes_both_files_and_bad_input_says_where(tmp_path, capsys):
    s0 = tmp_path / "seed-0"
    _write(s0, "zero-shot", [_rec(0.5, [_ask(), _answer(PAGE)], PAGE)])
    assert pages.main([str(s0), "--out", str(tmp_path / "out")]) == 0
    assert json.loads((tmp_path / "out" / "pages.json").read_text())["methods"]["zero-shot"]["pooled"]["page_pct"] == 100.0
    assert (tmp_path / "out" / "pages.md").read_text() == pages.markdown(pages.analyse([s0]))

    with (s0 / "eval" / "zero-shot.jsonl").open("a") as f:
        f.write('{"reward": 1.0}\n')
    with pytest.raises(SystemExit) as exc:
        pages.main([str(s0)])
    assert exc.value.code == 2
    assert f"{s0 / 'eval' / 'zero-shot.jsonl'}:2:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        pages.main([str(tmp_path / "nothing")])
    assert exc.value.code == 2 and "no eval/ folder" in capsys.readouterr().err
