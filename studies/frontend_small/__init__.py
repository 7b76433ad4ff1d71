"""Study: the frontend pipeline, --small preset, 3 seeds x 48 held-out tasks (issue 35 part 3)."""
