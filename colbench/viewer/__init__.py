"""``colbench view``: trajectories -> one self-contained HTML report, read offline from a file:// URL.

::

    from colbench.viewer import write_view, write_pipeline_report
    write_view(["runs/a.jsonl", "runs/b.jsonl"], "report.html")   # index, episodes, summary, A vs B
    write_pipeline_report("studies/pipeline_small")    # <out_dir>/report.html

The page (Jinja2 templates, Pygments highlighting, matplotlib SVG charts, page screenshots from the
scorer's headless Chromium, all inlined; no CDN, no server):

* **Episodes**: every episode with its task id, reward, success, agent turns, the scoring reason
  and any episode error; sorted by any column, filtered by run, outcome and reason class, searched by
  task id or any text of the episode.
* **Episode**: the task, the dialogue turn by turn (the agent's message as the human saw it, its
  thought folded away), the final answer highlighted; backend: the per-test table (call, expected,
  got, outcome), the one ``colbench evaluate --explain`` prints; frontend: the page the agent showed
  at each turn beside the target, with the similarity.
* **A vs B**: with two or more files, the first against each other one task by task: the counts
  (backend: A solved and B not, the reverse, both, neither; frontend: wins, losses, ties), each a
  filter, and each task's episodes side by side.
* **Summary**: per-run metrics (:func:`colbench_env.metrics.summarize`), the reward distribution,
  turns, and success (or similarity) by task family as charts; why episodes got their reward.

Modules: :mod:`.data` (reading, scoring, comparison), :mod:`.pages` (frontend renders),
:mod:`.charts`, :mod:`.html` (the page), :mod:`.report` (:func:`write_view`), :mod:`.pipeline_report`.
"""
from .report import ViewResult, write_view
from .pipeline_report import write_pipeline_report

__all__ = ["write_view", "write_pipeline_report", "ViewResult"]
