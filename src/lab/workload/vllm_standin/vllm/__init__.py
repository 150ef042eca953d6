"""vLLM stand-in: emulates vLLM's OpenAI server on a Ray cluster for the lab.

This is NOT vLLM. It reproduces how vLLM's classic Ray executor places its
workers (placement group with bundle 0 pinned to ``node:<get_ip()>``, the
unique-IP check, the wait and error messages) and serves vLLM's HTTP surface
with a tiny deterministic "model" whose every token needs all tensor-parallel
workers. See src/lab/workload/README.md.
"""

from vllm.version import __version__, __version_tuple__

#: Marker so tools (and people) can tell the stand-in from real vLLM.
STANDIN = True

__all__ = ["__version__", "__version_tuple__", "STANDIN"]
