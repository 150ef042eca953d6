"""vLLM's Prometheus metrics and its periodic stats log line.

Names, help texts, label names (``model_name``, ``engine``) and default
histogram buckets follow vllm/v1/metrics/loggers.py and buckets.py. The text
is rendered by hand in the Prometheus exposition format (version 0.0.4), as
prometheus_client would: counters get the ``_total`` suffix, histograms
``_bucket``/``_count``/``_sum``.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from vllm.logger import init_logger
from vllm.standin import act_as

logger = init_logger(__name__)

REQUEST_LATENCY_BUCKETS = (
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
    60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0,
)  # fmt: skip
TIME_TO_FIRST_TOKEN_BUCKETS = (
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
    5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
)  # fmt: skip
INTER_TOKEN_LATENCY_BUCKETS = (
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
    5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
)  # fmt: skip


def build_1_2_5_buckets(max_value: int) -> tuple[float, ...]:
    out: list[float] = []
    exponent = 0
    while True:
        for mantissa in (1, 2, 5):
            value = mantissa * 10**exponent
            if value > max_value:
                return tuple(out)
            out.append(value)
        exponent += 1


def _fmt(value: float) -> str:
    if value == float("inf"):
        return "+Inf"
    return repr(float(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class _Histogram:
    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...]) -> None:
        self.name = name
        self.documentation = documentation
        self.buckets = tuple(buckets) + (float("inf"),)
        self.counts = [0] * len(self.buckets)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.total += value
        self.count += 1
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                self.counts[i] += 1

    def render(self, labels: str) -> list[str]:
        lines = [f"# HELP {self.name} {self.documentation}", f"# TYPE {self.name} histogram"]
        for bound, count in zip(self.buckets, self.counts):
            lines.append(f'{self.name}_bucket{{{labels},le="{_fmt(bound)}"}} {_fmt(count)}')
        lines.append(f"{self.name}_count{{{labels}}} {_fmt(self.count)}")
        lines.append(f"{self.name}_sum{{{labels}}} {_fmt(self.total)}")
        return lines


class PrometheusStatLogger:
    """The metrics of one engine (engine="0") for one served model name."""

    def __init__(self, model_name: str, max_model_len: int, gauges: Callable[[], dict[str, float]]) -> None:
        self._lock = threading.Lock()
        self._labels = f'model_name="{_escape(model_name)}",engine="0"'
        self._gauges = gauges
        self.prompt_tokens = 0
        self.generation_tokens = 0
        # One series per FINISH_REASON_STRINGS entry of the release acted as.
        self.request_success: dict[str, int] = {r: 0 for r in act_as.release().finish_reasons}
        token_buckets = build_1_2_5_buckets(max_model_len)
        self._histograms = {
            "ttft": _Histogram(
                "vllm:time_to_first_token_seconds",
                "Histogram of time to first token in seconds.",
                TIME_TO_FIRST_TOKEN_BUCKETS,
            ),
            "itl": _Histogram(
                "vllm:inter_token_latency_seconds",
                "Histogram of inter-token latency in seconds.",
                INTER_TOKEN_LATENCY_BUCKETS,
            ),
            "e2e": _Histogram(
                "vllm:e2e_request_latency_seconds",
                "Histogram of e2e request latency in seconds.",
                REQUEST_LATENCY_BUCKETS,
            ),
            "queue": _Histogram(
                "vllm:request_queue_time_seconds",
                "Histogram of time spent in WAITING phase for request.",
                REQUEST_LATENCY_BUCKETS,
            ),
            "prompt": _Histogram(
                "vllm:request_prompt_tokens", "Number of prefill tokens processed.", token_buckets
            ),
            "generation": _Histogram(
                "vllm:request_generation_tokens", "Number of generation tokens processed.", token_buckets
            ),
        }
        # For the periodic log line.
        self._last_log = time.monotonic()
        self._interval_prompt = 0
        self._interval_generation = 0

    # --- recording (called by the engine) ---------------------------------

    def record_queue_time(self, seconds: float) -> None:
        with self._lock:
            self._histograms["queue"].observe(seconds)

    def record_prompt(self, num_tokens: int) -> None:
        with self._lock:
            self.prompt_tokens += num_tokens
            self._interval_prompt += num_tokens

    def record_token(self, first: bool, since_previous: float) -> None:
        with self._lock:
            self.generation_tokens += 1
            self._interval_generation += 1
            self._histograms["ttft" if first else "itl"].observe(since_previous)

    def record_finished(self, reason: str, e2e: float, prompt_tokens: int, generation_tokens: int) -> None:
        with self._lock:
            self.request_success[reason] = self.request_success.get(reason, 0) + 1
            self._histograms["e2e"].observe(e2e)
            self._histograms["prompt"].observe(prompt_tokens)
            self._histograms["generation"].observe(generation_tokens)

    # --- output ---------------------------------------------------------

    def render(self) -> str:
        gauges = self._gauges()
        labels = self._labels
        lines: list[str] = []

        def gauge(name: str, doc: str, value: float) -> None:
            lines.extend([f"# HELP {name} {doc}", f"# TYPE {name} gauge", f"{name}{{{labels}}} {_fmt(value)}"])

        def counter(name: str, doc: str, samples: list[tuple[str, float]]) -> None:
            lines.extend([f"# HELP {name} {doc}", f"# TYPE {name} counter"])
            for extra, value in samples:
                lines.append(f"{name}_total{{{labels}{extra}}} {_fmt(value)}")

        with self._lock:
            gauge(
                "vllm:num_requests_running",
                "Number of requests in model execution batches.",
                gauges["running"],
            )
            gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", gauges["waiting"])
            gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", gauges["kv_cache_usage"])
            counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [("", 0)])
            counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [("", self.prompt_tokens)])
            counter(
                "vllm:generation_tokens", "Number of generation tokens processed.", [("", self.generation_tokens)]
            )
            counter(
                "vllm:request_success",
                "Count of successfully processed requests.",
                [(f',finished_reason="{r}"', n) for r, n in sorted(self.request_success.items())],
            )
            for histogram in self._histograms.values():
                lines.extend(histogram.render(labels))
        return "\n".join(lines) + "\n"

    def maybe_log(self, interval: float) -> None:
        """vLLM's "Engine 000: Avg prompt throughput..." line, when there was activity."""
        now = time.monotonic()
        with self._lock:
            elapsed = now - self._last_log
            if elapsed < interval:
                return
            prompt, generation = self._interval_prompt, self._interval_generation
            self._interval_prompt = self._interval_generation = 0
            self._last_log = now
        gauges = self._gauges()
        if prompt == 0 and generation == 0 and gauges["running"] == 0 and gauges["waiting"] == 0:
            return
        logger.info(
            "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "
            "Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%",
            prompt / elapsed,
            generation / elapsed,
            gauges["running"],
            gauges["waiting"],
            gauges["kv_cache_usage"] * 100,
            0.0,
        )
