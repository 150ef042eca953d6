#!/usr/bin/env python3
"""What the lab's vLLM stand-in shows the tool, in the shape of the real-vLLM contract.

    python3 test/contract/standin_surface.py            # the stand-in as it runs by default
    VLLM_STANDIN_ACT_AS=0.24.0 python3 test/contract/standin_surface.py

Prints one JSON document (read by test/contract/standin-contract.test.ts, which holds it to
src/command/vllm-contract/vllm-<V>.json). Stdlib only: it imports the stand-in from
src/lab/workload/vllm_standin (no Ray needed for these modules) and calls the functions that build
its bodies, so what is compared is what the stand-in sends, not a copy:

- bodies: the JSON keys of GET /v1/models, completions and chat completions (whole and streamed,
  with the usage chunk) and the error body, per protocol model name of vLLM.
- metrics: every sample name and its label names in its /metrics text.
- flags: the option strings of its `vllm serve` parser.
- envs: the vLLM variables it reads and their defaults.
- logs: its format strings for the wordings the tool matches (extract.py's LOGS, read the same way).
- executor: which Ray executor it runs for VLLM_USE_RAY_V2_EXECUTOR_BACKEND unset / 0 / 1.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import sys
from http import HTTPStatus
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDIN = HERE.parents[1] / "src" / "lab" / "workload" / "vllm_standin"
sys.path.insert(0, str(STANDIN))
sys.path.insert(0, str(HERE))

import extract  # noqa: E402  (this folder)
from vllm import envs  # noqa: E402
from vllm.config import ModelConfig, ParallelConfig, SchedulerConfig, ServerConfig, VllmConfig  # noqa: E402
from vllm.engine import arg_utils  # noqa: E402
from vllm.entrypoints.openai import api_server, serving  # noqa: E402
from vllm.standin import act_as, release_flags  # noqa: E402
from vllm.v1.engine.core import SamplingParams  # noqa: E402
from vllm.v1.metrics.loggers import PrometheusStatLogger  # noqa: E402
from vllm.version import __version__  # noqa: E402


def keys(d: dict) -> list[str]:
    return sorted(d.keys())


def finished(choices, events_for):
    q: queue.Queue = queue.Queue()
    for c in choices:
        for ev in events_for(c):
            q.put((c.index, ev))
    return q


def bodies() -> dict[str, list[str]]:
    model = ModelConfig(model="/models/toy", served_model_names=["toy"])
    config = VllmConfig(model_config=model, parallel_config=ParallelConfig(), scheduler_config=SchedulerConfig(), server_config=ServerConfig())
    models = serving.models_body(config)
    out: dict[str, list[str]] = {"ModelList": keys(models), "ModelCard": keys(models["data"][0])}
    params = [SamplingParams(max_tokens=4)]
    for kind in ("completion", "chat"):
        parsed = serving.ParsedRequest(kind, "toy", [("hi", [1, 2])], 1, True, True, False, params)
        choices = [serving.ChoiceState(0, "hi", 2)]
        events = finished(choices, lambda c: [("delta", " a"), ("delta", " b"), ("finish", "stop", None, 2)])
        chunks = list(serving.stream_chunks(parsed, "id-1", 0, events, choices))
        whole = serving.full_response(parsed, "id-1", 0, choices)
        choice = whole["choices"][0]
        text_chunks = [ch for ch in chunks if ch["choices"]]
        usage_chunk = next(ch for ch in chunks if "usage" in ch)
        stream_choice_keys = sorted({k for ch in text_chunks for k in ch["choices"][0]})
        if kind == "completion":
            out["CompletionResponse"] = keys(whole)
            out["CompletionResponseChoice"] = keys(choice)
            out["CompletionStreamResponse"] = sorted({k for ch in chunks for k in ch})
            out["CompletionResponseStreamChoice"] = stream_choice_keys
        else:
            out["ChatCompletionResponse"] = keys(whole)
            out["ChatCompletionResponseChoice"] = keys(choice)
            out["ChatMessage"] = keys(choice["message"])
            out["ChatCompletionStreamResponse"] = sorted({k for ch in chunks for k in ch})
            out["ChatCompletionResponseStreamChoice"] = stream_choice_keys
            out["DeltaMessage"] = sorted({k for ch in text_chunks for k in ch["choices"][0]["delta"]})
        out["UsageInfo"] = keys(usage_chunk["usage"])
    err = serving.error_body("bad", "BadRequestError", HTTPStatus.BAD_REQUEST, "max_tokens")
    out["ErrorResponse"] = keys(err)
    out["ErrorInfo"] = keys(err["error"])
    return out


def metrics() -> dict[str, list[str]]:
    logger = PrometheusStatLogger("toy", 4096, lambda: {"running": 0, "waiting": 0, "kv_cache_usage": 0.0})
    logger.record_prompt(2)
    logger.record_token(True, 0.1)
    logger.record_finished("stop", 0.2, 2, 1)
    out: dict[str, set[str]] = {}
    for s in _samples(logger.render()):
        name, labels = s
        # A histogram's series (_bucket, _sum, _count) are one metric; `le` is prometheus_client's.
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and not name.endswith("_total"):
                name = name[: -len(suffix)]
        out.setdefault(name, set()).update(label for label in labels if label != "le")
    return {k: sorted(v) for k, v in sorted(out.items())}


def _samples(text: str):
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head = line.rsplit(" ", 1)[0]
        name, _, rest = head.partition("{")
        labels = [part.split("=", 1)[0] for part in rest.rstrip("}").split(",") if "=" in part]
        yield name, labels


def flags() -> list[str]:
    parser = arg_utils.make_arg_parser("vllm serve", True)
    return sorted(s for a in parser._actions for s in a.option_strings if s not in ("-h", "--help"))


def env_defaults() -> dict[str, dict]:
    tree = ast.parse((STANDIN / "vllm" / "envs.py").read_text())
    table = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.startswith("VLLM_"):
                    table[k.value] = v
    out = {}
    for name in extract.ENVS:
        if name not in table or not act_as.reads_env(name):
            out[name] = {"present": False, "default": None}
            continue
        v = table[name]
        # `_bool("NAME", "0")` / `_float("NAME", 1.0)` helpers, or os.getenv("NAME", default).
        default = extract._getenv_default(v, name)
        if default is None and isinstance(v, ast.Call) and len(v.args) >= 2 and isinstance(v.args[1], ast.Constant):
            default = str(v.args[1].value)
        out[name] = {"present": True, "default": act_as.env_default(name, default)}
    return out


class _Dir:
    """extract.Wheel's reading interface over the stand-in's source folder."""

    def __init__(self, root: Path):
        self.root = root
        self.names = sorted(str(p.relative_to(root)) for p in (root / "vllm").rglob("*.py"))
        self.unparsed: list[str] = []

    def text(self, name: str) -> str:
        return (self.root / name).read_text()

    def tree(self, name: str):
        return ast.parse(self.text(name))


def executor() -> dict[str, str]:
    out = {}
    for value in (None, "0", "1"):
        if value is None:
            os.environ.pop("VLLM_USE_RAY_V2_EXECUTOR_BACKEND", None)
        else:
            os.environ["VLLM_USE_RAY_V2_EXECUTOR_BACKEND"] = value
        out["unset" if value is None else value] = "v2" if act_as.use_ray_v2() else "classic"
    os.environ.pop("VLLM_USE_RAY_V2_EXECUTOR_BACKEND", None)
    return out


# Messages only the classic executor's path prints (RayDistributedExecutor and initialize_ray_cluster
# with require_gpu_on_driver): not printed when the release acted as has no classic executor.
CLASSIC_ONLY = {"unique-ip", "driver-no-device", "driver-not-in-pg", "ray-shutdown"}


def main() -> int:
    release = act_as.release()
    logs = extract.logs(_Dir(STANDIN))
    # Wordings that vary by release live in act_as.py: only the acted release's count.
    logs = {k: [e for e in v if not e["file"].endswith("standin/act_as.py")] for k, v in logs.items()}
    for fmt in release.kv_cache_formats:
        for k, needle in extract.LOGS.items():
            if needle in fmt:
                logs[k].append({"file": "vllm/standin/act_as.py", "function": "kv_cache_lines", "call": "logger.info", "format": fmt})
    logs["load-took"] = [e for e in logs.get("load-took", []) if not e["file"].endswith("standin/worker.py")]
    logs["load-took"].append({"file": "vllm/standin/worker.py", "function": "load_model", "call": "logger.info", "format": release.load_took_format})
    if not release.logs_load_start:
        logs["load-start"] = []
    else:
        logs["load-scratch"] = []
    if not release.classic_executor:
        logs = {k: ([] if k in CLASSIC_ONLY else v) for k, v in logs.items()}
    doc = {
        "standin": __version__,
        "acts_as": release.version,
        "version_endpoint": act_as.reported_version(),
        "bodies": bodies(),
        "metrics": metrics(),
        "flags": flags(),
        "envs": env_defaults(),
        "logs": {k: [{"file": e["file"], "call": e["call"], "format": e["format"]} for e in v] for k, v in logs.items()},
        "executor": executor(),
        # Acting as a release, the flags it accepts beyond its own parser's (and what it refuses).
        "release_flags": sorted(release_flags.FLAGS.get(release.version, ())),
        "refused": act_as.unknown_flags(["--max_model_len=8", "--no-enforce-eager", "-1", "--no-such-flag-anywhere"]),
        "routes": {path: sorted(methods) for path, methods in api_server.ROUTES},
        "finish_reasons": sorted(PrometheusStatLogger("toy", 16, lambda: {}).request_success),
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    assert envs is not None
    sys.exit(main())
