"""The "ask" family: can SmolLM2-135M learn to ask, and does a warm-started policy that asks let SWEET-RL's
turn-level credit show? Scripts: probe_policy.py, warm_start.py, first_token_margins.py; see README.md."""
