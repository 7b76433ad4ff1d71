"""Peak memory of ``colbench train ALGORITHM`` by stage: the command runs in this process while a
thread samples its resident set size every 0.25 s, labelled with the trainer method running then
(SWEET-RL: model build, critic training, each candidate generation call, candidate scoring, the
policy's DPO; other algorithms: the whole update). Prints one line per stage entered and left, and a
JSON object of the peak per stage (GB = 10^9 bytes) on stderr; run it under ``/usr/bin/time -v`` for
the whole run's maximum resident set size::

    OMP_WAIT_POLICY=PASSIVE /usr/bin/time -v python -m benchmarks.bench_train_stages sweet-rl \\
        --trajectories roll1.jsonl --model smollm2 --out ck

Every argument after the algorithm is ``colbench train``'s (benchmarks/README.md, "Measured here": issue 38's row).
"""
from __future__ import annotations

import functools
import json
import sys
import threading
import time


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    label, peaks, t0 = ["start"], {}, time.time()

    def sample() -> None:
        while True:
            peaks[label[0]] = max(peaks.get(label[0], 0), _rss())
            time.sleep(0.25)

    threading.Thread(target=sample, daemon=True).start()

    import agents.sweet_rl as sweet_rl
    import agents.trainer_base as trainer_base

    def wrap(cls, name: str, stage: str) -> None:
        f = getattr(cls, name)

        @functools.wraps(f)
        def labelled(*a, **k):
            before, label[0] = label[0], stage
            print(f"[{time.time() - t0:7.1f}s rss {_rss() / 1e9:.2f} GB] enter {stage}", file=sys.stderr, flush=True)
            try:
                return f(*a, **k)
            finally:
                print(f"[{time.time() - t0:7.1f}s rss {_rss() / 1e9:.2f} GB] leave {stage} peak "
                      f"{peaks.get(stage, 0) / 1e9:.2f}", file=sys.stderr, flush=True)
                label[0] = before

        setattr(cls, name, labelled)

    wrap(sweet_rl.SweetRL, "_build", "build")
    wrap(sweet_rl.SweetRL, "update_critic", "critic")
    wrap(sweet_rl.SweetRL, "score_actions", "score")
    wrap(sweet_rl.SweetRL, "update_policy", "dpo")
    wrap(trainer_base.TrainableLM, "generate", "generate")
    from colbench.cli import main as cli_main

    try:
        return cli_main(["train", *argv])
    finally:
        print(json.dumps({k: round(v / 1e9, 3) for k, v in peaks.items()}), file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
