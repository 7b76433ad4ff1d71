"""Embedded task sets (jsonl) and the modules that author them."""
