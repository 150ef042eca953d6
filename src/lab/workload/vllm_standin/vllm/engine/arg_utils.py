"""Command-line arguments of `vllm serve` that the stand-in understands.

Everything else is accepted and ignored (listed in one log line), so the
lab's real-looking command lines (--gpu-memory-utilization, --dtype, ...)
do not break the stand-in.
"""

from __future__ import annotations

import argparse
import os

from vllm.config import ModelConfig, ParallelConfig, SchedulerConfig, ServerConfig, VllmConfig
from vllm.standin import act_as

_DEFAULTS = {
    "host": None,
    "port": 8000,
    "tensor_parallel_size": 1,
    "pipeline_parallel_size": 1,
    "distributed_executor_backend": None,
    "max_model_len": None,
    "max_num_seqs": 256,
    "served_model_name": None,
    "api_key": None,
    "disable_uvicorn_access_log": False,
    "nnodes": 1,
    "node_rank": 0,
    "master_addr": "127.0.0.1",
    "master_port": 29501,
    "headless": False,
    "distributed_timeout_seconds": None,
}


def make_arg_parser(prog: str, model_positional: bool) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    if model_positional:
        parser.add_argument("model_tag", nargs="?", default=None, help="model name or path")
    parser.add_argument("--model", default=None, help="model name or path")
    parser.add_argument("--host", default=_DEFAULTS["host"])
    parser.add_argument("--port", type=int, default=_DEFAULTS["port"])
    parser.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    parser.add_argument("--pipeline-parallel-size", "-pp", type=int, default=1)
    parser.add_argument(
        "--distributed-executor-backend",
        choices=["ray", "mp", "uni", "external_launcher"],
        default=None,
    )
    parser.add_argument("--served-model-name", nargs="+", default=None)
    parser.add_argument("--max-model-len", type=int, default=None)
    parser.add_argument("--max-num-seqs", type=int, default=256)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--disable-uvicorn-access-log", action="store_true")
    # Native multi-node mode (vllm/config/parallel.py: nnodes, node_rank, master_addr, master_port).
    parser.add_argument("--nnodes", "-n", type=int, default=1)
    parser.add_argument("--node-rank", "-r", type=int, default=0)
    parser.add_argument("--master-addr", default="127.0.0.1")
    parser.add_argument("--master-port", type=int, default=29501)
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--distributed-timeout-seconds", type=int, default=None)
    return parser


def parse_serve_args(argv: list[str], prog: str = "vllm serve", model_positional: bool = True) -> VllmConfig:
    parser = make_arg_parser(prog, model_positional)
    args, unknown = parser.parse_known_args(argv)
    # Acting as a release, a flag that release's `vllm serve` lacks stops it as vLLM's parser does.
    foreign = act_as.unknown_flags(unknown)
    if foreign:
        parser.error(f"unrecognized arguments: {' '.join(foreign)}")
    model = getattr(args, "model_tag", None) or args.model
    if not model:
        parser.error("the model is required: vllm serve MODEL [options]")
    if args.tensor_parallel_size < 1 or args.pipeline_parallel_size < 1:
        parser.error("--tensor-parallel-size and --pipeline-parallel-size must be >= 1")
    if args.nnodes < 1 or args.node_rank < 0:
        parser.error("--nnodes must be >= 1 and --node-rank >= 0")
    if args.node_rank >= args.nnodes:
        parser.error(f"--node-rank ({args.node_rank}) must be less than --nnodes ({args.nnodes})")

    non_default = {"model_tag" if model_positional else "model": model}
    for key, default in _DEFAULTS.items():
        value = getattr(args, key)
        if value != default:
            non_default[key] = value

    served = args.served_model_name or [model]
    return VllmConfig(
        model_config=ModelConfig(
            model=model,
            served_model_names=served,
            max_model_len=args.max_model_len or 4096,
        ),
        parallel_config=ParallelConfig(
            tensor_parallel_size=args.tensor_parallel_size,
            pipeline_parallel_size=args.pipeline_parallel_size,
            distributed_executor_backend=args.distributed_executor_backend,
            master_addr=args.master_addr,
            master_port=args.master_port,
            node_rank=args.node_rank,
            nnodes=args.nnodes,
            distributed_timeout_seconds=args.distributed_timeout_seconds,
        ),
        scheduler_config=SchedulerConfig(max_num_seqs=args.max_num_seqs),
        server_config=ServerConfig(
            host=args.host,
            port=args.port,
            api_key=args.api_key or os.environ.get("VLLM_API_KEY") or None,
            disable_access_log=args.disable_uvicorn_access_log,
        ),
        non_default_args=non_default,
        headless=args.headless,
        ignored_args=unknown,
    )
