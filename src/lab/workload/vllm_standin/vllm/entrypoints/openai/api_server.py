"""The OpenAI-compatible HTTP server (stdlib http.server, no FastAPI/uvicorn).

Start-up order follows vLLM's: the port is bound first (vLLM binds before
building the engine, "to avoid race conditions with ray") but only starts
listening once the engine is ready, so until then a client gets
"connection refused". Then the uvicorn-style lines are logged:

    INFO:     Application startup complete.
    INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)

Also runnable as ``python -m vllm.entrypoints.openai.api_server --model M ...``.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import vllm.envs as envs
from vllm.config import VllmConfig
from vllm.engine.arg_utils import parse_serve_args
from vllm.entrypoints.openai import serving
from vllm.logger import init_logger, process_prefix, set_process_role, uvicorn_logger
from vllm.v1.engine.core import EngineCore, EngineDeadError, EngineInitError, build_engine
from vllm.standin import act_as

logger = init_logger("vllm.entrypoints.openai.api_server")  # also when run as __main__
uvicorn_error = uvicorn_logger("uvicorn.error")
uvicorn_access = uvicorn_logger("uvicorn.access")

WATCHDOG_INTERVAL_S = 5.0  # VLLM_WATCHDOG_TIME_S in vllm/entrypoints/launchers/launcher.py

ROUTES: list[tuple[str, tuple[str, ...]]] = [
    ("/health", ("GET",)),
    ("/ping", ("GET", "POST")),
    ("/load", ("GET",)),
    ("/version", ("GET",)),
    ("/metrics", ("GET",)),
    ("/v1/models", ("GET",)),
    ("/v1/completions", ("POST",)),
    ("/v1/chat/completions", ("POST",)),
]


def create_server_socket(host: str | None, port: int) -> socket.socket:
    """Bind without listening (vllm/entrypoints/launchers/launcher.py)."""
    address = host or ""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family=family, type=socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, port))
    return sock


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # vLLM's server listens with uvicorn's backlog (uvicorn.Config(backlog=2048), passed to
    # asyncio's create_server for the socket vLLM bound); socketserver's default of 5 dropped and
    # reset connections of a 24-request burst, which read as failures of the smoke's tunnel.
    request_queue_size = 2048

    def __init__(self, sock: socket.socket, app: "App") -> None:
        super().__init__(sock.getsockname()[:2], _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.app = app


class App:
    def __init__(self, vllm_config: VllmConfig, engine: EngineCore) -> None:
        self.vllm_config = vllm_config
        self.engine = engine
        self.server_load = 0
        self._load_lock = threading.Lock()

    def add_load(self, delta: int) -> None:
        with self._load_lock:
            self.server_load += delta


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    # --- plumbing --------------------------------------------------------

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - BaseHTTPRequestHandler API
        pass

    def _access_log(self, status: int) -> None:
        if self.server.app.vllm_config.server_config.disable_access_log:
            return
        client = f"{self.client_address[0]}:{self.client_address[1]}"
        phrase = HTTPStatus(status).phrase
        uvicorn_access.info('%s - "%s %s HTTP/1.1" %d %s', client, self.command, self.path, status, phrase)

    def _send(self, status: int, body: bytes = b"", content_type: str | None = "application/json") -> None:
        self.send_response_only(status)
        self.send_header("date", self.date_time_string())
        self.send_header("server", "uvicorn")
        self.send_header("content-length", str(len(body)))
        if content_type and body:
            self.send_header("content-type", content_type)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
        self._access_log(status)

    def _send_json(self, status: int, data) -> None:
        self._send(status, serving.as_json(data))

    def _send_error(self, error: serving.RequestError) -> None:
        self._send_json(error.status, serving.error_body(error.message, error.err_type, error.status, error.param))

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def _authorized(self, path: str) -> bool:
        api_key = self.server.app.vllm_config.server_config.api_key
        if not api_key or not path.startswith("/v1"):
            return True
        return self.headers.get("authorization", "") == f"Bearer {api_key}"

    # --- dispatch --------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        path = self._path()
        methods = dict(ROUTES).get(path)
        if methods is None:
            self._read_body()
            self._send_json(404, {"detail": "Not Found"})
            return
        if method not in methods:
            self._read_body()
            self._send_json(405, {"detail": "Method Not Allowed"})
            return
        if not self._authorized(path):
            self._read_body()
            self._send_json(401, {"error": "Unauthorized"})
            return
        app = self.server.app
        try:
            if path in ("/health", "/ping"):
                self._read_body()
                try:
                    app.engine.check_health()
                    self._send(200, b"", None)
                except EngineDeadError:
                    self._send(503, b"", None)
            elif path == "/load":
                self._send_json(200, {"server_load": app.server_load})
            elif path == "/version":
                self._send_json(200, {"version": act_as.reported_version()})
            elif path == "/metrics":
                self._send(200, app.engine.metrics.render().encode(), "text/plain; version=0.0.4; charset=utf-8")
            elif path == "/v1/models":
                self._send_json(200, serving.models_body(app.vllm_config))
            elif path == "/v1/completions":
                self._generate("completion")
            elif path == "/v1/chat/completions":
                self._generate("chat")
        except (BrokenPipeError, ConnectionResetError):
            pass

    # --- generation ------------------------------------------------------

    def _generate(self, kind: str) -> None:
        app = self.server.app
        raw = self._read_body()
        try:
            parsed = serving.parse_request(kind, raw, app.vllm_config)
        except serving.RequestError as e:
            self._send_error(e)
            return
        app.add_load(1)
        requests = []
        try:
            try:
                events, choices, requests = serving.submit(app.engine, parsed)
            except EngineDeadError as e:
                self._send_json(500, serving.server_error_body(e))
                return
            request_id, created = serving.new_ids(parsed)
            if parsed.stream:
                self._stream(parsed, request_id, created, events, choices, requests)
                return
            try:
                serving.collect(events, choices)
            except EngineDeadError as e:
                self._send_json(500, serving.server_error_body(e))
                return
            self._send_json(200, serving.full_response(parsed, request_id, created, choices))
        finally:
            app.add_load(-1)

    def _stream(self, parsed, request_id, created, events, choices, requests) -> None:
        self.send_response_only(200)
        self.send_header("date", self.date_time_string())
        self.send_header("server", "uvicorn")
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._access_log(200)

        def write(data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        try:
            try:
                for payload in serving.stream_chunks(parsed, request_id, created, events, choices):
                    write(b"data: " + serving.as_json(payload) + b"\n\n")
            except EngineDeadError as e:
                write(b"data: " + serving.as_json(serving.server_error_body(e)) + b"\n\n")
            write(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            for request in requests:
                self.server.app.engine.abort(request)
            self.close_connection = True


# --- start-up ----------------------------------------------------------------


def _shutdown_ray() -> None:
    """Disconnect the driver (stops Ray's log threads before interpreter exit)."""
    try:
        import ray

        if ray.is_initialized():
            ray.shutdown()
    except Exception:
        pass


def run_server(vllm_config: VllmConfig) -> int:
    set_process_role("api_server")
    server_config = vllm_config.server_config
    # vLLM's plain form (log_version_and_model without the logo: VLLM_DISABLE_LOG_LOGO or no formatter).
    logger.info("vLLM server version %s, serving model %s", act_as.reported_version(), vllm_config.model_config.model)
    logger.info("non-default args: %s", vllm_config.non_default_args)
    if vllm_config.ignored_args:
        logger.warning("The vLLM stand-in accepts and ignores these arguments: %s", vllm_config.ignored_args)

    sock = create_server_socket(server_config.host, server_config.port)
    try:
        engine = build_engine(vllm_config)
    except EngineInitError as e:
        sys.stderr.write(f"{process_prefix()}RuntimeError: {e}\n")
        sys.stderr.flush()
        sock.close()
        _shutdown_ray()
        return 1

    app = App(vllm_config, engine)
    server = _Server(sock, app)
    shown_host = server_config.host or "0.0.0.0"
    logger.info("Starting vLLM server on http://%s:%d", shown_host, server_config.port)
    logger.info("Available routes are:")
    for path, methods in ROUTES:
        logger.info("Route: %s, Methods: %s", path, ", ".join(methods))

    pid = os.getpid()
    uvicorn_error.info("Started server process [%d]", pid)
    uvicorn_error.info("Waiting for application startup.")
    uvicorn_error.info("Application startup complete.")
    server.server_activate()  # listen(): from here on connections are accepted
    uvicorn_error.info("Uvicorn running on http://%s:%d (Press CTRL+C to quit)", shown_host, server_config.port)

    exit_code = {"code": 0}
    stopping = threading.Event()

    def stop(code: int) -> None:
        if not stopping.is_set():
            exit_code["code"] = code
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    def on_signal(signum, _frame) -> None:
        stop(0)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def watchdog() -> None:
        # vLLM: terminate_if_errored() every 5 s unless VLLM_KEEP_ALIVE_ON_ENGINE_DEATH.
        while not stopping.wait(WATCHDOG_INTERVAL_S):
            if engine.errored and not envs.VLLM_KEEP_ALIVE_ON_ENGINE_DEATH:
                logger.error("Engine core is dead; shutting down the API server.")
                stop(1)

    threading.Thread(target=watchdog, name="watchdog", daemon=True).start()
    server.serve_forever(poll_interval=0.2)

    uvicorn_error.info("Shutting down")
    server.server_close()
    uvicorn_error.info("Waiting for application shutdown.")
    engine.shutdown()
    _shutdown_ray()
    uvicorn_error.info("Application shutdown complete.")
    uvicorn_error.info("Finished server process [%d]", pid)
    return exit_code["code"]


def main(argv: list[str] | None = None) -> int:
    vllm_config = parse_serve_args(
        sys.argv[1:] if argv is None else argv,
        prog="python -m vllm.entrypoints.openai.api_server",
        model_positional=False,
    )
    return run_server(vllm_config)


if __name__ == "__main__":
    sys.exit(main())
