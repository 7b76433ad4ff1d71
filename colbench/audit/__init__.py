"""Audits of what a score rests on: the tasks (:mod:`.tasks`, ``colbench audit tasks``) and the
human's turns of recorded dialogues (:mod:`.dialogues`, ``colbench audit dialogues``).

Modules: :mod:`.values` (finding values and code in text), :mod:`.code_sites` (the constants, strings
and roundings of a ground truth, and their mutants), :mod:`.tasks`, :mod:`.dialogues`.
"""
from .tasks import CHECKS, TaskAudit, audit_tasks, summary_table

__all__ = ["CHECKS", "TaskAudit", "audit_tasks", "summary_table"]
