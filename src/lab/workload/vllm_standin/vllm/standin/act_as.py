"""Which vLLM release the stand-in acts as, where releases differ in what the tool sees.

``VLLM_STANDIN_ACT_AS=0.24.0`` (one of ``RELEASES``) makes the stand-in behave as that release:
``/version`` reports it (with ``+standin``), ``VLLM_USE_RAY_V2_EXECUTOR_BACKEND`` gets that
release's default (or does not exist), the classic Ray executor exists or not, the chat message
names its reasoning field as that release does, and the ``finished_reason`` values are that
release's. Unset, the stand-in is what it always was: ``0.17.0+standin`` with the classic
executor as default and the V2 flag available (default 0), i.e. vLLM 0.20.x's executor choice.

Each row is what that release's wheel says; test/contract/standin-contract.test.ts holds every
row to src/command/vllm-contract/vllm-<V>.json (extracted from the wheel by test/contract/extract.py),
so a wrong row fails a test naming the version.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Release:
    version: str
    #: Default of VLLM_USE_RAY_V2_EXECUTOR_BACKEND in vllm/envs.py; None: the release has no such variable.
    v2_flag_default: str | None
    #: RayDistributedExecutor (the classic executor, bundle 0 pinned to node:<ip>) still exists.
    classic_executor: bool
    #: ChatMessage's field for the reasoning text.
    chat_reasoning_field: str
    #: FINISH_REASON_STRINGS: the finished_reason label values of vllm:request_success.
    finish_reasons: tuple[str, ...]
    #: The KV-cache lines after profiling (vllm/v1/core/kv_cache_utils.py), each with the same three
    #: arguments: device, tokens, max model length (a format uses the ones it names, in order).
    kv_cache_formats: tuple[str, ...] = (
        "GPU KV cache size: %s tokens",
        "Maximum concurrency for %s tokens per request: %.2fx",
    )
    #: "Starting to load model %s..." (gone from 0.34.0's model runner).
    logs_load_start: bool = True
    #: ChatMessage's serializer drops an empty ``tool_calls`` (``ChatMessage._serialize``, in the 0.24.0,
    #: 0.28.0 and 0.34.0 wheels, not in 0.19.1's; the live 0.24.0 capture sends no ``tool_calls``).
    chat_drops_empty_tool_calls: bool = False
    #: The model runner's load line: the V1 runner's (vllm/v1/worker/gpu_model_runner.py) by default;
    #: 0.24.0 runs the V2 runner (vllm/v1/worker/gpu/model_runner.py: "Using V2 Model Runner" in the
    #: live capture), whose line has no "memory".
    load_took_format: str = "Model loading took %s GiB memory and %.6f seconds"


_FINISH = ("stop", "length", "abort", "error", "repetition")

#: The stand-in's own behaviour (no VLLM_STANDIN_ACT_AS).
DEFAULT = Release("0.17.0", "0", True, "reasoning", _FINISH)

_KV_ONE_LINE = ("GPU KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx",)

RELEASES: dict[str, Release] = {
    "0.19.1": Release("0.19.1", None, True, "reasoning", _FINISH),
    "0.24.0": Release(
        "0.24.0",
        "1",
        True,
        "reasoning",
        _FINISH,
        chat_drops_empty_tool_calls=True,
        load_took_format="Model loading took %s GiB and %.6f seconds",
    ),
    "0.28.0": Release("0.28.0", "1", True, "reasoning", _FINISH, _KV_ONE_LINE, chat_drops_empty_tool_calls=True),
    "0.34.0": Release(
        "0.34.0",
        None,
        False,
        "reasoning",
        _FINISH,
        ("%s KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx",),
        logs_load_start=False,
        chat_drops_empty_tool_calls=True,
    ),
}


def kv_cache_lines(tokens: int, max_len: int) -> list[tuple[str, tuple]]:
    """The release's KV-cache log lines as (format, args)."""
    out = []
    for fmt in release().kv_cache_formats:
        args: list = []
        if fmt.startswith("%s KV"):
            args.append("GPU")
        if "KV cache size" in fmt:
            args.append(f"{tokens:,}")
        if "Maximum concurrency" in fmt:
            args += [f"{max_len:,}", tokens / max_len]
        out.append((fmt, tuple(args)))
    return out


def release() -> Release:
    name = os.getenv("VLLM_STANDIN_ACT_AS", "").strip()
    if not name:
        return DEFAULT
    if name not in RELEASES:
        raise SystemExit(f"VLLM_STANDIN_ACT_AS={name}: the stand-in can act as {', '.join(RELEASES)}")
    return RELEASES[name]


def reported_version() -> str:
    """What ``/version`` and the start-up lines say."""
    r = release()
    return f"{r.version}+standin"


def env_default(name: str, default: str | None) -> str | None:
    """The default of a vLLM variable under the release acted as (only the V2 flag varies)."""
    if name == "VLLM_USE_RAY_V2_EXECUTOR_BACKEND":
        return release().v2_flag_default
    return default


def reads_env(name: str) -> bool:
    """Does the release acted as have this variable? (The V2 flag only from 0.20.0 to 0.32.0.)"""
    return name != "VLLM_USE_RAY_V2_EXECUTOR_BACKEND" or release().v2_flag_default is not None


def unknown_flags(words: list[str]) -> list[str]:
    """The option words the release acted as does not have (none when not acting as one).

    As vLLM reads them: ``--flag_name`` is ``--flag-name``, ``--flag=value`` is ``--flag``, ``--no-flag``
    exists where ``--flag`` does (BooleanOptionalAction); values and negative numbers are not flags.
    """
    if release() is DEFAULT:
        return []
    from vllm.standin.release_flags import FLAGS

    known = FLAGS[release().version]
    out = []
    for word in words:
        if not word.startswith("-") or word[1:2].isdigit() or word in ("-", "--"):
            continue
        name = word.split("=", 1)[0]
        if name.startswith("--"):
            name = name.replace("_", "-")
        if name in known or (name.startswith("--no-") and "--" + name[len("--no-"):] in known):
            continue
        out.append(word)
    return out


def use_ray_v2() -> bool:
    """Does ``--distributed-executor-backend ray`` run RayExecutorV2 (else the classic executor)?"""
    r = release()
    if not r.classic_executor:
        return True
    if r.v2_flag_default is None:
        return False
    raw = os.getenv("VLLM_USE_RAY_V2_EXECUTOR_BACKEND", "").strip() or r.v2_flag_default
    return bool(int(raw))
