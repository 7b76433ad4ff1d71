"""The temperature-0.3 collection anomaly: policy, not sampler. Script: measure.py; see README.md."""
