#!/usr/bin/env python3
"""Extract the contract vllm-ray-deploy holds vLLM to, from one published vLLM wheel.

    python3 test/contract/extract.py contract WHEEL   # the contract of that release (JSON on stdout)
    python3 test/contract/extract.py facts WHEEL      # only its executor facts (for the version table)
    python3 test/contract/extract.py merge-facts FILE # merge `facts` lines from stdin into FILE

Reads the wheel's Python files with `ast` straight out of the zip: nothing is imported or
installed, no torch, no GPU. Only what the tool relies on is kept (see WANTED below, and
test/contract/README.md for who reads what):

- protocol: the fields (name -> annotation) of the OpenAI-protocol response models the smoke reads,
  wherever the release defines them (vllm/entrypoints/openai/protocol.py in older releases, split
  into engine/, completion/, chat_completion/ later, vllm/entrypoints/serve/engine/protocol.py in
  the newest); fields of base classes are merged in.
- metrics: every `vllm:` Prometheus metric the v1 PrometheusStatLogger (vllm/v1/metrics/loggers.py)
  registers: kind, label names, and whether it is only registered under --show-hidden-metrics-for-version;
  and FINISH_REASON_STRINGS (the finished_reason label values).
- flags: every option `vllm serve` accepts (add_argument calls in the serve parser's files, and the
  `--field-name` of each FrontendArgs dataclass field), and the executor backends
  (`DistributedExecutorBackend`).
- envs: the vLLM environment variables the tool sets or reads, with the default `envs.py` gives.
- logs: every format string (log call or exception text) that contains one of the wordings the
  start-up watcher and `diagnose` match, with its file, function and call.
- routes: the HTTP routes the smoke requests, with their methods (and /version's JSON keys).
- executor: the facts vllm-pin.ts decides on: whether VLLM_USE_RAY_V2_EXECUTOR_BACKEND exists and
  its default, whether the classic RayDistributedExecutor exists, and every `f"node:{...}"`
  placement-group pin with the function that adds it.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import PurePosixPath

# The response models the smoke reads (src/smoke/openai.ts) and what for.
PROTOCOL_CLASSES = [
    "ModelCard",  # GET /v1/models entries: id
    "ModelList",  # GET /v1/models: data
    "UsageInfo",  # usage: prompt_tokens, completion_tokens, total_tokens
    "CompletionResponse",
    "CompletionResponseChoice",
    "CompletionStreamResponse",
    "CompletionResponseStreamChoice",
    "ChatCompletionResponse",
    "ChatCompletionResponseChoice",
    "ChatMessage",
    "ChatCompletionStreamResponse",
    "ChatCompletionResponseStreamChoice",
    "DeltaMessage",
    "ErrorResponse",
    "ErrorInfo",
    "StreamOptions",
]

# Environment variables the tool sets (VLLM_HOST_IP: src/plan/node-commands.ts nodeEnv) or decides on
# (VLLM_USE_RAY_V2_EXECUTOR_BACKEND: src/preflight/vllm-pin.ts), and ones its docs and checks name.
ENVS = [
    "VLLM_HOST_IP",
    "VLLM_USE_RAY_V2_EXECUTOR_BACKEND",
    "VLLM_API_KEY",
    "VLLM_LOGGING_LEVEL",
    "VLLM_RAY_PER_WORKER_GPUS",
    "VLLM_RAY_BUNDLE_INDICES",
    "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH",
    "VLLM_LOG_STATS_INTERVAL",
    "VLLM_RAY_PG_STRATEGY",
    "VLLM_DISTRIBUTED_EXECUTOR_CONFIG",
    "VLLM_RAY_DP_PACK_STRATEGY",
    "VLLM_NIXL_SIDE_CHANNEL_HOST",
]

# Wordings of vLLM's own messages that src/preflight/signature-rules*.ts and the start-up watcher
# match (id -> a piece of the message that is a plain literal in vLLM's source).
LOGS = {
    "pg-wait": "Waiting for creating a placement group of specs",
    "pg-timeout": "Cannot provide a placement group",
    "unique-ip": "Every node should have a unique IP address",
    "driver-no-gpu-old": "Ray does not allocate any GPUs on the driver node",
    "driver-no-device": "Current node has no ",
    "driver-not-in-pg": "is not included in a placement",
    "engine-core-failed": "EngineCore failed to start",
    "engine-init-failed": "Engine core initialization failed",
    "headless": "headless multiproc executor",
    "free-memory": "Free memory on device",
    "no-cache-memory": "No available memory for the cache blocks",
    "dist-init": "distributed_init_method=%s",
    "tp-exceeds": "exceeds available GPUs",
    "no-pg-found": "No current placement group found",
    "api-server-start": "Starting vLLM ",
    "default-backend": "Defaulting to use ",
    "server-version": "server version %s",
    # Lines the stand-in prints as vLLM does (start-up phases, engine stats), held to vLLM's wording.
    "non-default-args": "non-default args: %s",
    "routes": "Available routes are",
    "route": "Route: %s, Methods",
    "engine-init": "Initializing a V1 LLM engine",
    "kv-cache-size": "KV cache size: %s tokens",
    "max-concurrency": "Maximum concurrency for",
    "load-start": "Starting to load model",
    "load-took": "Model loading took",
    "copy-env": "Copying the following environment variables",
    "existing-pg": "Using the existing placement group",
    "ray-initialized": "Ray is already initialized",
    "required-devices": "The number of required",
    "bundles-spread": "is bigger than a reserved number",
    "ray-shutdown": "Shutting down Ray distributed executor",
    "host-ip-deprecated": "HOST_IP is deprecated",
    "engine-fatal": "EngineCore encountered a fatal error",
    # The phases of a start (src/preflight/startup-phases.ts): the first line of each, and the lines
    # that say one ended, as vLLM prints them from config to the API server.
    "resolved-arch": "Resolved architecture",
    "nccl-version": "vLLM is using nccl",
    "load-scratch": "Loading model from scratch",
    "weights-took": "Loading weights took",
    "shards-progress": "Loading safetensors checkpoint shards",
    "compile-cache": "Using cache directory",
    "compile-load": "Directly load the compiled graph",
    "dynamo": "Dynamo bytecode transform time",
    "compile-graph": "Compiling a graph for",
    "memory-profiling": "Memory profiling takes",
    "kv-memory": "Available KV cache memory",
    "fi-autotune": "FlashInfer autotun",
    "cuda-graph": "Capturing CUDA graph",
    "graph-finished": "Graph capturing finished",
    "init-engine-took": "init engine (profile",
    "torch-compile-total": "torch.compile took",
    "profiling-run": "Initial profiling/warmup run",
    "cuda-graph-memory": "Profiling CUDA graph memory",
}

# The HTTP routes the smoke requests (src/smoke/) and the stand-in serves.
ROUTES = ("/health", "/ping", "/load", "/version", "/metrics", "/v1/models", "/v1/completions", "/v1/chat/completions")
# Servers `vllm serve` does not run: the old demo server and the DP supervisor's own app.
NOT_SERVE = ("vllm/entrypoints/api_server.py", "vllm/entrypoints/openai/dp_supervisor.py")

FLAG_FILES = (
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/cli/serve.py",
)
FRONTEND_CLASSES = ("BaseFrontendArgs", "FrontendArgs")
LOG_CALLS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "info_once", "warning_once", "debug_once"}


def render(node: ast.AST) -> str | None:
    """A string literal or f-string as one format string (`{expr}` for each interpolation)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append("{" + ast.unparse(v.value) + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = render(node.left), render(node.right)
        if left is not None and right is not None:
            return left + right
    return None


class Wheel:
    def __init__(self, path: str):
        self.zip = zipfile.ZipFile(path)
        self.names = [n for n in self.zip.namelist() if n.startswith("vllm/") and n.endswith(".py")]
        self._trees: dict[str, ast.Module | None] = {}
        self._texts: dict[str, str] = {}
        self.unparsed: list[str] = []

    def version(self) -> str:
        for n in self.zip.namelist():
            if n.endswith(".dist-info/METADATA"):
                for line in self.zip.read(n).decode().splitlines():
                    if line.startswith("Version: "):
                        return line[len("Version: ") :].strip()
        raise SystemExit("no METADATA in the wheel")

    def tree(self, name: str) -> ast.Module | None:
        if name not in self._trees:
            try:
                self._trees[name] = ast.parse(self.zip.read(name).decode("utf-8"), filename=name)
            except (SyntaxError, KeyError):
                self._trees[name] = None
                self.unparsed.append(name)
        return self._trees[name]

    def text(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = self.zip.read(name).decode("utf-8", "replace")
        return self._texts[name]


def class_defs(w: Wheel, wanted: set[str]) -> dict[str, tuple[str, ast.ClassDef]]:
    """Every wanted class's first definition (files in sorted order; shims re-export, they do not define)."""
    found: dict[str, tuple[str, ast.ClassDef]] = {}
    for name in sorted(w.names):
        text = w.text(name)
        if not any(f"class {c}" in text for c in wanted - found.keys()):
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name in wanted and node.name not in found:
                found[node.name] = (name, node)
    return found


def own_fields(cls: ast.ClassDef) -> dict[str, str]:
    return {
        s.target.id: ast.unparse(s.annotation)
        for s in cls.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and not s.target.id.startswith("_")
    }


def protocol(w: Wheel) -> dict[str, dict]:
    found = class_defs(w, set(PROTOCOL_CLASSES))
    bases_needed = {ast.unparse(b) for _, c in found.values() for b in c.bases} - found.keys()
    bases = class_defs(w, {b for b in bases_needed if b.isidentifier() and b not in ("BaseModel", "OpenAIBaseModel")})
    out: dict[str, dict] = {}
    for cname in PROTOCOL_CLASSES:
        if cname not in found:
            out[cname] = {"file": None, "fields": {}}
            continue
        path, cls = found[cname]
        fields: dict[str, str] = {}
        for b in cls.bases:
            bn = ast.unparse(b)
            src = found.get(bn) or bases.get(bn)
            if src:
                fields.update(own_fields(src[1]))
        fields.update(own_fields(cls))
        out[cname] = {"file": path, "fields": dict(sorted(fields.items()))}
    return out


def _list_value(node: ast.AST, scope: dict[str, ast.AST]) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple):
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return vals if len(vals) == len(node.elts) else None
    if isinstance(node, ast.Name) and node.id in scope:
        return _list_value(scope[node.id], scope)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _list_value(node.left, scope), _list_value(node.right, scope)
        return a + b if a is not None and b is not None else None
    return None


def metrics(w: Wheel) -> dict:
    path = "vllm/v1/metrics/loggers.py"
    tree = w.tree(path)
    out: dict[str, dict] = {}
    if tree is None:
        return {"file": None, "metrics": out, "finish_reasons": []}

    def visit(node: ast.AST, scope: dict[str, ast.AST], hidden: bool) -> None:
        if isinstance(node, ast.FunctionDef):
            scope = dict(scope)
            for s in ast.walk(node):
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                    scope.setdefault(s.targets[0].id, s.value)
        if isinstance(node, ast.If):
            gate = "show_hidden_metrics" in ast.unparse(node.test)
            for s in node.body:
                visit(s, scope, hidden or gate)
            for s in node.orelse:
                visit(s, scope, hidden)
            return
        if isinstance(node, ast.Call):
            kw = {k.arg: k.value for k in node.keywords if k.arg}
            name = kw.get("name")
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.startswith("vllm:"):
                fn = ast.unparse(node.func).lower()
                kind = next((k for k in ("counter", "gauge", "histogram") if k in fn), "unknown")
                labels = _list_value(kw["labelnames"], scope) if "labelnames" in kw else []
                exposed = name.value + "_total" if kind == "counter" else name.value
                entry = {"kind": kind, "labels": labels, "hidden": hidden}
                prev = out.get(exposed)
                # Registered twice (hidden and not): it is shown by default if any registration is.
                out[exposed] = entry if prev is None else {**entry, "hidden": prev["hidden"] and hidden}
        for child in ast.iter_child_nodes(node):
            visit(child, scope, hidden)

    visit(tree, {}, False)
    reasons: list[str] = []
    engine = w.tree("vllm/v1/engine/__init__.py")
    for node in ast.walk(engine) if engine else []:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "FINISH_REASON_STRINGS" for t in node.targets):
            reasons = _list_value(node.value, {}) or []
    return {"file": path, "metrics": dict(sorted(out.items())), "finish_reasons": reasons}


def flags(w: Wheel) -> dict:
    found: set[str] = set()
    # The frontend's arguments moved (vllm/entrypoints/openai/cli_args.py, later
    # vllm/entrypoints/common/cli_args.py): wherever FrontendArgs is defined, with make_arg_parser.
    frontend = [n for n in w.names if n.startswith("vllm/entrypoints/") and "class FrontendArgs(" in w.text(n)]
    files = sorted({f for f in FLAG_FILES if f in w.names} | set(frontend))
    for f in files:
        tree = w.tree(f)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                for a in node.args:
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-"):
                        found.add(a.value)
            if isinstance(node, ast.ClassDef) and node.name in FRONTEND_CLASSES:
                found.update("--" + n.replace("_", "-") for n in own_fields(node))
    backends: list[str] = []
    par = w.tree("vllm/config/parallel.py") if "vllm/config/parallel.py" in w.names else None
    for node in ast.walk(par) if par else []:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DistributedExecutorBackend" for t in node.targets):
            if isinstance(node.value, ast.Subscript):
                sl = node.value.slice
                backends = [e.value for e in (sl.elts if isinstance(sl, ast.Tuple) else [sl]) if isinstance(e, ast.Constant)]
    return {"files": files, "flags": sorted(found), "executor_backends": backends}


def routes(w: Wheel) -> dict:
    """path -> methods and file, for the ROUTES `vllm serve`'s app registers (decorators, or a Mount);
    for /version also the keys of the JSON it returns."""
    out: dict[str, dict] = {}
    for name in sorted(w.names):
        if not name.startswith("vllm/entrypoints/") or name in NOT_SERVE:
            continue
        text = w.text(name)
        if not any(f'"{r}"' in text for r in ROUTES):
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for d in node.decorator_list:
                    if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.args):
                        continue
                    path = d.args[0]
                    if not (isinstance(path, ast.Constant) and path.value in ROUTES):
                        continue
                    attr = d.func.attr
                    if attr in ("get", "post", "put", "delete"):
                        methods = [attr.upper()]
                    elif attr == "api_route":
                        kw = {k.arg: k.value for k in d.keywords}
                        methods = _list_value(kw["methods"], {}) or [] if "methods" in kw else ["GET"]
                    else:
                        continue
                    entry = out.setdefault(path.value, {"methods": [], "files": [], "json_keys": []})
                    entry["methods"] = sorted(set(entry["methods"]) | set(methods))
                    entry["files"] = sorted(set(entry["files"]) | {name})
                    if path.value == "/version":
                        keys = {k.value for n in ast.walk(node) if isinstance(n, ast.Dict) for k in n.keys if isinstance(k, ast.Constant)}
                        entry["json_keys"] = sorted(set(entry["json_keys"]) | keys)
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Mount") and node.args:
                path = node.args[0]
                if isinstance(path, ast.Constant) and path.value in ROUTES:
                    entry = out.setdefault(path.value, {"methods": [], "files": [], "json_keys": []})
                    entry["methods"] = sorted(set(entry["methods"]) | {"GET"})
                    entry["files"] = sorted(set(entry["files"]) | {name})
    return dict(sorted(out.items()))


def _getenv_default(fn: ast.AST, name: str) -> str | None:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            callee = ast.unparse(node.func)
            first = node.args[0]
            if callee.endswith(("getenv", "environ.get")) and isinstance(first, ast.Constant) and first.value == name:
                d = node.args[1]
                return d.value if isinstance(d, ast.Constant) and isinstance(d.value, str) else ast.unparse(d)
    return None


def envs(w: Wheel) -> dict:
    tree = w.tree("vllm/envs.py")
    table: dict[str, ast.AST] = {}
    for node in ast.walk(tree) if tree else []:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == "environment_variables" and isinstance(node.value, ast.Dict):
            for k, v in zip(node.value.keys, node.value.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    table[k.value] = v
    out = {}
    for name in ENVS:
        if name in table:
            out[name] = {"present": True, "default": _getenv_default(table[name], name)}
        else:
            out[name] = {"present": False, "default": None}
    return {"file": "vllm/envs.py", "envs": out}


def _enclosing(tree: ast.Module):
    """(node, function name, call) for every string-like node, with its innermost def and call."""
    def walk(node: ast.AST, fn: str, call: str | None):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = node.name
        # A docstring or a bare string statement is documentation, not a message.
        if isinstance(node, ast.Expr) and render(node.value) is not None:
            return
        if isinstance(node, ast.Call):
            callee = ast.unparse(node.func)
            attr = node.func.attr if isinstance(node.func, ast.Attribute) else callee
            if attr in LOG_CALLS or re.search(r"(Error|Exception)$", attr):
                call = callee
        s = render(node)
        if s is not None:
            yield node, fn, call, s
            if not isinstance(node, ast.BinOp):
                return
        for child in ast.iter_child_nodes(node):
            yield from walk(child, fn, call)

    return walk(tree, "<module>", None)


def logs(w: Wheel) -> dict:
    out: dict[str, list[dict]] = {k: [] for k in LOGS}
    for name in sorted(w.names):
        if name in NOT_SERVE:
            continue
        text = w.text(name)
        # Only files whose source holds a needle's first three words are parsed (a needle split over
        # implicit concatenation before its third word would be missed: the tests want each one found).
        if not any(" ".join(needle.split()[:3]) in text for needle in LOGS.values()):
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        seen: set[tuple[str, str]] = set()
        for _node, fn, call, s in _enclosing(tree):
            for lid, needle in LOGS.items():
                if needle in s and (lid, s) not in seen:
                    seen.add((lid, s))
                    out[lid].append({"file": name, "function": fn, "call": call, "format": s})
    return out


def executor(w: Wheel) -> dict:
    e = envs(w)["envs"]["VLLM_USE_RAY_V2_EXECUTOR_BACKEND"]
    classic = v2 = None
    pins: list[dict] = []
    for name in sorted(w.names):
        text = w.text(name)
        if "class RayDistributedExecutor" in text or "class RayGPUExecutor" in text:
            classic = classic or name
        if "class RayExecutorV2" in text:
            v2 = v2 or name
        if "node:" not in text:
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        for node, fn, _call, s in _enclosing(tree):
            if isinstance(node, ast.JoinedStr) and s.startswith("node:{") and "ip" in s.lower():
                pins.append({"file": name, "function": fn, "format": s})
    return {
        "v2_flag": e["present"],
        "v2_flag_default": e["default"],
        "classic_executor_file": classic,
        "v2_executor_file": v2,
        "node_pins": pins,
    }


def contract(w: Wheel) -> dict:
    c = {
        "vllm": w.version(),
        "protocol": protocol(w),
        "routes": routes(w),
        "metrics": metrics(w),
        "flags": flags(w),
        "envs": envs(w),
        "logs": logs(w),
        "executor": executor(w),
    }
    # A file the tool needs that this Python could not parse would silently drop facts: say so.
    c["unparsed_files"] = sorted(set(w.unparsed))
    return c


def _version_key(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.]|post", v))


def merge_facts(path: str) -> None:
    """Merge `facts` lines (stdin) into the facts file at `path`, one row per release, oldest first."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        doc = {"about": "", "releases": []}
    rows = {r["vllm"]: r for r in doc["releases"]}
    for line in sys.stdin:
        if line.strip():
            d = json.loads(line)
            rows[d["vllm"]] = {
                "vllm": d["vllm"],
                "wheel": d["wheel"],
                "v2_flag": d["v2_flag"],
                "v2_flag_default": d["v2_flag_default"],
                "classic_executor_file": d["classic_executor_file"],
                "v2_executor_file": d["v2_executor_file"],
                # The driver's pin (ray_utils/executor); the DP master pin of vllm/v1/engine/utils.py is another matter.
                "driver_pin": [p for p in d["node_pins"] if "ray_utils" in p["file"] or "executor" in p["file"]],
            }
    doc["about"] = (
        "Executor facts of the vLLM releases read for src/preflight/vllm-pin.ts, written by "
        "`test/contract/extract.sh facts V... | python3 test/contract/extract.py merge-facts test/contract/executor-facts.json` "
        "(each wheel read with ast, then deleted)."
    )
    doc["releases"] = [rows[k] for k in sorted(rows, key=_version_key)]
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def standin_flags(data: str, out: str) -> None:
    """The stand-in's copy of each contract release's `vllm serve` flags (it cannot read the repository)."""
    import glob

    rows = []
    for path in sorted(glob.glob(f"{data}/vllm-*.json"), key=lambda p: _version_key(p.split("vllm-")[-1][:-5])):
        with open(path) as f:
            c = json.load(f)
        rows.append(f'    "{c["vllm"]}": frozenset("{" ".join(c["flags"]["flags"])}".split()),')
    text = (
        '"""`vllm serve` flags of each release the stand-in can act as. Generated by test/contract/extract.sh\n'
        "from src/command/vllm-contract/vllm-<V>.json (read from the wheels); do not edit.\n"
        '"""\n\n'
        "FLAGS: dict[str, frozenset[str]] = {\n" + "\n".join(rows) + "\n}\n"
    )
    with open(out, "w") as f:
        f.write(text)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "standin-flags":
        standin_flags(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "merge-facts":
        merge_facts(argv[2])
        return 0
    if len(argv) != 3 or argv[1] not in ("contract", "facts"):
        print(__doc__, file=sys.stderr)
        return 2
    w = Wheel(argv[2])
    doc = contract(w) if argv[1] == "contract" else {"vllm": w.version(), **executor(w), "wheel": PurePosixPath(argv[2]).name}
    json.dump(doc, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
