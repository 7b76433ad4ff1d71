"""``python -m colbench.benchmarks.bench_train_stages ALGORITHM ARGS...``: see the package docstring."""
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

    import colbench.agents.sweet_rl as sweet_rl
    import colbench.agents.trainer_base as trainer_base

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
        print(json.dumps({k: round(v / 1e9, 3) for k, v in peaks.items()}, allow_nan=False), file=sys.stderr,
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
