"""Issue 17 part 3 rerun with the end-token fix: the pipeline on 48 "rate" tasks x 3 seeds. Script:
human_rerun.py (re-runs the episodes a new version of the scripted human answers differently); see README.md."""
