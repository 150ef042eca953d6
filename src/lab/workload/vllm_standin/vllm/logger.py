"""vLLM-style logging.

Lines look like real vLLM's (vllm/logger.py):

    (APIServer pid=4711) INFO 12-02 13:45:01 [api_server.py:120] message

``(<process> pid=<pid>) `` is the per-process prefix vLLM adds to every line
of its API server and engine-core processes; here both roles live in one
process, so the engine-side modules (executor, engine core) are labelled
``EngineCore_DP0`` and the rest ``APIServer``, with the same pid. In a Ray
worker actor there is no such prefix: Ray prefixes the forwarded lines itself
with ``(RayWorkerWrapper pid=..., ip=...)``.

vLLM logs go to stdout; uvicorn's lines (startup, access log) to stderr, as
with the real server.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback

import vllm.envs as envs

_DATE_FORMAT = "%m-%d %H:%M:%S"
_ENGINE_MODULES = ("vllm.v1.executor", "vllm.v1.engine", "vllm.standin")
_process_role: str | None = None  # None: no "(Role pid=N) " prefix (Ray workers)
_configured = False


def set_process_role(role: str | None) -> None:
    """``"api_server"`` in the `vllm serve` process; None in Ray workers."""
    global _process_role
    _process_role = role


def process_prefix(logger_name: str = "vllm.entrypoints") -> str:
    if _process_role is None:
        return envs.VLLM_LOGGING_PREFIX
    name = "EngineCore_DP0" if logger_name.startswith(_ENGINE_MODULES) else "APIServer"
    return f"{envs.VLLM_LOGGING_PREFIX}({name} pid={os.getpid()}) "


class _VllmFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        record.fileinfo = os.path.basename(record.pathname)
        record.vllm_prefix = process_prefix(record.name)
        text = super().format(record)
        # Multi-line messages repeat the header on every line, like vLLM's
        # NewLineFormatter.
        if record.message and "\n" in text:
            header = text.split(record.message)[0]
            text = text.replace("\n", "\n" + header)
        return text


class _UvicornFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        level = f"{record.levelname}:"
        return f"{process_prefix()}{level:<9} {record.getMessage()}"


def _configure() -> None:
    global _configured
    if _configured:
        return
    _configured = True
    if not envs.VLLM_CONFIGURE_LOGGING:
        return
    root = logging.getLogger("vllm")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        _VllmFormatter(
            "%(vllm_prefix)s%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s",
            datefmt=_DATE_FORMAT,
        )
    )
    root.addHandler(handler)
    root.setLevel(envs.VLLM_LOGGING_LEVEL)
    root.propagate = False

    uv = logging.getLogger("uvicorn")
    uv_handler = logging.StreamHandler(sys.stderr)
    uv_handler.setFormatter(_UvicornFormatter())
    uv.addHandler(uv_handler)
    uv.setLevel(logging.INFO)
    uv.propagate = False


def init_logger(name: str) -> logging.Logger:
    _configure()
    return logging.getLogger(name)


def uvicorn_logger(name: str = "uvicorn.error") -> logging.Logger:
    """Logger whose lines look like uvicorn's (``INFO:     ...``) on stderr."""
    _configure()
    return logging.getLogger(name)


def print_exception(exc: BaseException, logger_name: str) -> None:
    """Write a traceback to stderr with the process prefix on every line."""
    prefix = process_prefix(logger_name)
    text = "".join(traceback.format_exception(exc))
    sys.stderr.write("".join(prefix + line + "\n" for line in text.rstrip("\n").split("\n")))
    sys.stderr.flush()
