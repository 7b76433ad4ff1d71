"""Make the docs' screenshots of ``colbench view`` (``docs/view_*.png``) from committed episodes, in
the same offline headless Chromium the tests use.

    python docs/make_screenshots.py

Backend: the warm-start pipeline's seed-0 greedy evaluation, RFT against zero-shot
(``studies/ask_family/warm_start/pipeline/seed-0/eval/{rft,zero-shot}.jsonl``); frontend:
the two scripted runs of ``tests/data`` (``view_frontend_a.jsonl`` against ``view_frontend_b.jsonl``).
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from colbench.viewer import write_view  # noqa: E402
from colbench.viewer.browser import console_errors, network_requests, offline_browser, open_report  # noqa: E402

EVAL = Path("studies/ask_family/warm_start/pipeline/seed-0/eval")  # relative: the page shows it
WIDTH = 1280


def shot(driver, path: Path, report: Path, fragment: str, *, max_height: int, js: str = "") -> None:
    open_report(driver, report, fragment)
    if js:
        driver.execute_script(js)
    driver.execute_script("return Promise.all(Array.from(document.images).filter(i => !i.complete)"
                          ".map(i => new Promise(r => { i.onload = i.onerror = r; })));")
    time.sleep(0.2)
    height = min(max_height, driver.execute_script("return document.documentElement.scrollHeight"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.save_screenshot(str(path))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    errors, requests = console_errors(driver), network_requests(driver)
    if errors or requests:
        raise SystemExit(f"{fragment}: console {errors}, network {requests}")
    print(f"wrote {path.relative_to(ROOT)} ({height} px high)")


def main() -> None:
    os.chdir(ROOT)
    docs = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp:
        back, front = Path(tmp) / "backend.html", Path(tmp) / "frontend.html"
        write_view([EVAL / "rft.jsonl", EVAL / "zero-shot.jsonl"], back, labels=["rft", "zero-shot"],
                   title="colbench view: rft vs zero-shot (warm-start pipeline, seed 0)", progress=False)
        write_view([Path("tests/data/view_frontend_a.jsonl"), Path("tests/data/view_frontend_b.jsonl")], front,
                   labels=["draft-then-answer", "answer-at-once"], title="colbench view: two scripted frontend runs",
                   progress=False)
        with offline_browser((WIDTH, 900)) as d:
            shot(d, docs / "view_index.png", back, "#/index", max_height=900,
                 js="document.querySelector('#f-outcome').value = 'failed';"
                    "document.querySelector('#f-outcome').dispatchEvent(new Event('change'));"
                    "Array.from(document.querySelectorAll('#index th')).find(t => t.textContent.trim() === 'turns').click();"
                    "Array.from(document.querySelectorAll('#index th')).find(t => t.textContent.trim() === 'turns').click();")
            shot(d, docs / "view_episode_backend.png", back, "#/episode/3", max_height=1300)
            shot(d, docs / "view_episode_frontend.png", front, "#/episode/2", max_height=1900)
            shot(d, docs / "view_compare.png", back, "#/compare/0", max_height=900,
                 js="document.querySelector('#view-compare-0 button.cat-a_only').click();")
            shot(d, docs / "view_pair.png", back, "#/pair/0/1", max_height=1200)
            shot(d, docs / "view_summary.png", back, "#/summary", max_height=900)


if __name__ == "__main__":
    main()
