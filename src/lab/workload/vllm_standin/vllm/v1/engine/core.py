"""The engine loop: continuous batching over the executor's decode steps.

Every step asks the executor for the next-token candidates of every running
request at once (one round of calls to all tensor-parallel workers), then
samples, streams and finishes requests. A failed step (dead, hung or
unreachable worker) kills the engine, like vLLM's EngineDeadError.
"""

from __future__ import annotations

import itertools
import math
import queue
import random
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from vllm.config import VllmConfig
from vllm.logger import init_logger, print_exception
from vllm.standin import toy_model
from vllm.v1.executor.abstract import Executor
from vllm.v1.metrics.loggers import PrometheusStatLogger
from vllm.version import __version__ as VLLM_VERSION

import vllm.envs as envs

logger = init_logger(__name__)


class EngineInitError(RuntimeError):
    """What the API server sees when the engine core could not start."""


class EngineDeadError(Exception):
    def __init__(self, message: str = "EngineCore encountered an issue. See stack trace (above) for the root cause.") -> None:
        super().__init__(message)


@dataclass
class SamplingParams:
    max_tokens: int
    min_tokens: int = 0
    temperature: float = 1.0
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    ignore_eos: bool = False


@dataclass
class Request:
    request_id: str
    prompt_ids: list[int]
    params: SamplingParams
    events: "queue.Queue[tuple]"
    index: int = 0
    arrival_time: float = field(default_factory=time.monotonic)
    # filled by the engine
    digest: bytes = b""
    output_ids: list[int] = field(default_factory=list)
    text: str = ""
    last_token_time: float = 0.0
    rng: random.Random | None = None
    aborted: bool = False


class EngineCore:
    def __init__(self, vllm_config: VllmConfig, executor: Executor) -> None:
        self.vllm_config = vllm_config
        self.executor = executor
        self.max_num_seqs = vllm_config.scheduler_config.max_num_seqs
        self.max_model_len = vllm_config.model_config.max_model_len
        self.kv_capacity = max(1, envs.VLLM_STANDIN_KV_CACHE_TOKENS)
        self.metrics = PrometheusStatLogger(
            vllm_config.model_config.served_model_name, self.max_model_len, self._gauges
        )
        self._cond = threading.Condition()
        self._waiting: deque[Request] = deque()
        self._running: list[Request] = []
        self._stop = False
        self.errored = False
        self._ids = itertools.count()
        self._thread = threading.Thread(target=self._loop, name="EngineCore", daemon=True)
        self._stats_thread = threading.Thread(target=self._log_stats_loop, name="StatLogger", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._stats_thread.start()

    # --- API for the server ---------------------------------------------

    def add_request(self, request: Request) -> None:
        with self._cond:
            if self.errored:
                raise EngineDeadError()
            request.digest = toy_model.initial_digest(request.prompt_ids)
            request.rng = random.Random(request.params.seed) if request.params.seed is not None else random.Random()
            self._waiting.append(request)
            self._cond.notify()

    def abort(self, request: Request) -> None:
        request.aborted = True

    def check_health(self) -> None:
        if self.errored:
            raise EngineDeadError()
        try:
            self.executor.check_health()
        except Exception as e:  # a worker is gone
            self._die(e)
            raise EngineDeadError() from e

    def shutdown(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=10)
        self.executor.shutdown()

    def _gauges(self) -> dict[str, float]:
        running = list(self._running)
        used = sum(len(r.prompt_ids) + len(r.output_ids) for r in running)
        return {
            "running": len(running),
            "waiting": len(self._waiting),
            "kv_cache_usage": min(1.0, used / self.kv_capacity),
        }

    # --- the loop -------------------------------------------------------

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stop and not self._waiting and not self._running:
                    self._cond.wait(timeout=0.5)
                if self._stop:
                    return
                self._admit()
                batch = [r for r in self._running if not r.aborted]
                for r in self._running:
                    if r.aborted:
                        self._finish(r, "abort", None, notify=False)
                self._running = batch
            if not batch:
                continue
            try:
                step = self.executor.execute_model([(r.digest, len(r.output_ids)) for r in batch])
            except Exception as e:
                self._die(e)
                return
            now = time.monotonic()
            still_running = []
            for request, candidates in zip(batch, step):
                if not self._append_token(request, candidates, now):
                    still_running.append(request)
            with self._cond:
                done = set(map(id, batch)) - set(map(id, still_running))
                self._running = [r for r in self._running if id(r) not in done]

    def _admit(self) -> None:
        now = time.monotonic()
        while self._waiting and len(self._running) < self.max_num_seqs:
            request = self._waiting.popleft()
            if request.aborted:
                continue
            self._running.append(request)
            self.metrics.record_queue_time(now - request.arrival_time)
            self.metrics.record_prompt(len(request.prompt_ids))

    def _append_token(self, request: Request, candidates: list[tuple[int, float]], now: float) -> bool:
        """Sample, stream and maybe finish one request. True when it finished."""
        params = request.params
        if params.ignore_eos or len(request.output_ids) < params.min_tokens:
            candidates = [c for c in candidates if c[0] != toy_model.EOS_ID] or candidates
        token_id = self._sample(request, candidates)
        first = not request.output_ids
        self.metrics.record_token(first, now - (request.arrival_time if first else request.last_token_time))
        request.last_token_time = now

        if token_id == toy_model.EOS_ID:
            request.output_ids.append(token_id)
            self._finish(request, "stop", None)
            return True

        request.output_ids.append(token_id)
        request.digest = toy_model.advance(request.digest, token_id)
        delta = toy_model.token_text(token_id)
        text = request.text + delta
        for stop in params.stop:
            cut = text.find(stop)
            if cut != -1:
                delta = text[len(request.text) : cut] if cut > len(request.text) else ""
                request.text = text[:cut]
                if delta:
                    request.events.put(("delta", delta, token_id))
                self._finish(request, "stop", stop)
                return True
        request.text = text
        request.events.put(("delta", delta, token_id))
        total = len(request.prompt_ids) + len(request.output_ids)
        if len(request.output_ids) >= params.max_tokens or total >= self.max_model_len:
            self._finish(request, "length", None)
            return True
        return False

    @staticmethod
    def _sample(request: Request, candidates: list[tuple[int, float]]) -> int:
        temperature = request.params.temperature
        if temperature <= 0 or len(candidates) == 1:
            return candidates[0][0]
        best = candidates[0][1]
        weights = [math.exp((score - best) / temperature) for _, score in candidates]
        assert request.rng is not None
        return request.rng.choices([c[0] for c in candidates], weights=weights, k=1)[0]

    def _finish(self, request: Request, reason: str, stop_reason: str | None, notify: bool = True) -> None:
        generated = len(request.output_ids)
        self.metrics.record_finished(reason, time.monotonic() - request.arrival_time, len(request.prompt_ids), generated)
        if notify:
            request.events.put(("finish", reason, stop_reason, generated))

    def _die(self, error: BaseException) -> None:
        with self._cond:
            if self.errored:
                return
            self.errored = True
            failed = list(self._running) + list(self._waiting)
            self._running, self._waiting = [], deque()
            self._cond.notify_all()
        logger.error("EngineCore encountered a fatal error.")
        print_exception(error, __name__)
        for request in failed:
            request.events.put(("error", EngineDeadError()))

    def _log_stats_loop(self) -> None:
        while not self._stop and not self.errored:
            interval = envs.VLLM_LOG_STATS_INTERVAL
            time.sleep(min(1.0, interval))
            self.metrics.maybe_log(interval)


def build_engine(vllm_config: VllmConfig) -> EngineCore:
    """Pick the executor, start the workers, start the engine loop.

    Any failure is logged with its traceback (as the engine-core process would)
    and turned into the API server's "Engine core initialization failed".
    """
    model_config = vllm_config.model_config
    parallel_config = vllm_config.parallel_config
    try:
        executor_class = Executor.get_class(vllm_config)
        logger.info(
            "Initializing a V1 LLM engine (v%s) with config: model=%r, served_model_name=%s, "
            "max_seq_len=%d, tensor_parallel_size=%d, pipeline_parallel_size=%d, "
            "distributed_executor_backend=%s, executor=%s",
            VLLM_VERSION,
            model_config.model,
            model_config.served_model_name,
            model_config.max_model_len,
            parallel_config.tensor_parallel_size,
            parallel_config.pipeline_parallel_size,
            parallel_config.distributed_executor_backend,
            executor_class.__name__,
        )
        executor = executor_class(vllm_config)
    except BaseException as e:
        logger.error("EngineCore failed to start.")
        print_exception(e, __name__)
        raise EngineInitError(
            "Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"
        ) from None
    engine = EngineCore(vllm_config, executor)
    engine.start()
    return engine
