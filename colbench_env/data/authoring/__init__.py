"""Hand-authored sources of the embedded default task sets (each module writes one jsonl)."""
