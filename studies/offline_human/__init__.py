"""The offline human on official-style records: leaks and revealed literals. Script: measure.py; see README.md."""
