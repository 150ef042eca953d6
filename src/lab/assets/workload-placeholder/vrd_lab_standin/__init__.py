"""Placeholder for the vLLM stand-in (src/lab/workload/), used until that folder exists."""

PLACEHOLDER = True
