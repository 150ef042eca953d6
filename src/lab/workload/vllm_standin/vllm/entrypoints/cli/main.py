"""The `vllm` console command (entry point vllm.entrypoints.cli.main:main, as in vLLM).

    vllm serve MODEL [--tensor-parallel-size N] [--pipeline-parallel-size M]
                     [--distributed-executor-backend ray] [--host H] [--port P]
                     [--served-model-name NAME ...] [other vLLM args: accepted, ignored]
                     [--nnodes N --node-rank I --master-addr A --master-port P [--headless]]
    vllm --version
"""

from __future__ import annotations

import sys

from vllm.version import __version__

USAGE = """usage: vllm [-h] [-v] {serve} ...

vLLM stand-in CLI (emulates vLLM's Ray executor; not vLLM).

positional arguments:
  {serve}
    serve        Launch a local OpenAI-compatible API server to serve a model.

options:
  -h, --help     show this help message and exit
  -v, --version  show program's version number and exit
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] in ("-v", "--version"):
        sys.stdout.write(f"{__version__}\n")
        return 0
    if args[0] == "serve":
        from vllm.engine.arg_utils import parse_serve_args

        vllm_config = parse_serve_args(args[1:])
        if vllm_config.headless:
            from vllm.entrypoints.cli.serve import run_headless

            return run_headless(vllm_config)
        from vllm.entrypoints.openai.api_server import run_server

        return run_server(vllm_config)
    sys.stderr.write(USAGE + f"vllm: error: unknown command {args[0]!r} (the stand-in only has 'serve')\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
