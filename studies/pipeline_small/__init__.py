"""``colbench pipeline --small``, one uninterrupted run, and where its memory went. Script: memory_probe.py;
see README.md."""
