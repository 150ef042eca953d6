"""The stand-in on a real Ray cluster: two raylets on this host, one GPU each.

Cluster "spark": the head raylet has no VLLM_HOST_IP (its workers report the
default-route IP, which is also the IP Ray registered the node under); the
second node's raylet has VLLM_HOST_IP=10.99.99.98, a made-up address that
only travels as a label, so the two nodes report distinct IPs, like two
DGX Sparks.

Cluster "twins": both raylets without VLLM_HOST_IP, so both nodes report the
same IP: vLLM's unique-IP check must fire.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import unittest

import harness
from harness import FAKE_DRIVER_IP, FAKE_WORKER_IP, RayCluster, Standin
from vllm.standin import toy_model

TP2 = ["--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"]
WAIT_LINE = r"\[ray_utils\.py:\d+\] Waiting for creating a placement group of specs for (\d+) seconds\. specs=(.*)\. Check `ray status`"


def expected_completion(prompt: str, max_tokens: int) -> str:
    """Greedy output computed here, on one shard: the TP=2 server must agree."""
    digest = toy_model.initial_digest(toy_model.tokenize(prompt))
    text, generated = "", 0
    while generated < max_tokens:
        best = toy_model.merge_partials([toy_model.score_shard(toy_model.shard_ids(0, 1), digest, generated)])
        token_id = best[0][0]
        generated += 1
        if token_id == toy_model.EOS_ID:
            break
        text += toy_model.token_text(token_id)
        digest = toy_model.advance(digest, token_id)
    return text


def rank1_worker_pid(s: Standin) -> int:
    """PID of the rank-1 worker actor, from Ray's "(RayWorkerWrapper pid=N)" prefix."""
    m = s.proc.wait_for(r"\(RayWorkerWrapper pid=(\d+)(?:, ip=[^)]*)?\).*vocabulary shard 1 of 2", timeout=30)
    return int(m.group(1))


class SparkPairTests(unittest.TestCase):
    cluster: RayCluster

    @classmethod
    def setUpClass(cls) -> None:
        cls.cluster = RayCluster("spark")
        try:
            cls.cluster.start_head(vllm_host_ip=None)
            cls.cluster.add_node(vllm_host_ip=FAKE_WORKER_IP)
        except BaseException:
            cls.cluster.stop()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.cluster.stop()

    def start(self, name: str, args: list[str] = TP2, **env: str | None) -> Standin:
        env.setdefault("RAY_DEDUP_LOGS", "0")
        standin = Standin(name, self.cluster, args, **env)
        self.addCleanup(standin.stop)
        return standin

    # --- classic executor, correct VLLM_HOST_IP ----------------------------

    def test_serves_tensor_parallel_across_two_nodes(self) -> None:
        node_ip = self.cluster.node_ip
        s = self.start(
            "classic",
            VLLM_HOST_IP=node_ip,
            VLLM_LOGGING_LEVEL="DEBUG",
            VLLM_STANDIN_LOAD_DELAY_S="1.5",
        )
        self.assertEqual(s.health(), "refused", "the port must refuse connections while the engine loads")
        s.wait_ready()
        self.assertEqual(s.health(), 200)
        log = s.proc.output

        with self.subTest("start-up log as vLLM's"):
            self.assertIn("Tensor parallel size (2) exceeds available GPUs (1).", log)
            self.assertIn(f"Connecting to existing Ray cluster at address: {self.cluster.address}", log)
            self.assertIn("Tensor parallel workers can be spread out to 2+ nodes", log)
            self.assertRegex(log, r"executor=RayDistributedExecutor")
            inits = re.findall(
                r"\[parallel_state\.py:\d+\] world_size=2 rank=(\d) local_rank=0 "
                r"distributed_init_method=tcp://([\d.]+):\d+ backend=nccl",
                log,
            )
            # (Two raylets on one host forward worker lines twice: compare as a set.)
            self.assertEqual(set(inits), {("0", node_ip), ("1", node_ip)}, log[-3000:])
            self.assertNotIn("Waiting for creating a placement group", log)
            self.assertRegex(log, r"INFO:     Application startup complete\.\n.*INFO:     Uvicorn running on http://127\.0\.0\.1:%d" % s.port)

        with self.subTest("/version /ping /v1/models"):
            self.assertEqual(s.get_json("/version"), (200, {"version": "0.17.0+standin"}))
            self.assertEqual(s.request("GET", "/ping")[0], 200)
            status, models = s.get_json("/v1/models")
            self.assertEqual(status, 200)
            self.assertEqual(models["object"], "list")
            self.assertEqual(models["data"][0]["id"], "standin-toy")
            self.assertEqual(models["data"][0]["owned_by"], "vllm")
            self.assertEqual(models["data"][0]["permission"][0]["object"], "model_permission")

        prompt = "Write a haiku about a GPU"
        with self.subTest("/v1/completions: shape, determinism, both shards used"):
            status, body = s.post_json("/v1/completions", {"model": "standin-toy", "prompt": prompt, "max_tokens": 8, "temperature": 0})
            self.assertEqual(status, 200, body)
            self.assertRegex(body["id"], r"^cmpl-[0-9a-f]{32}$")
            self.assertEqual(body["object"], "text_completion")
            self.assertEqual(body["model"], "standin-toy")
            choice = body["choices"][0]
            self.assertEqual(choice["text"], expected_completion(prompt, 8))
            self.assertIn(choice["finish_reason"], ("length", "stop"))
            usage = body["usage"]
            self.assertEqual(usage["prompt_tokens"], len(toy_model.tokenize(prompt)))
            self.assertEqual(usage["total_tokens"], usage["prompt_tokens"] + usage["completion_tokens"])
            self.assertGreater(usage["completion_tokens"], 0)
            again = s.post_json("/v1/completions", {"prompt": prompt, "max_tokens": 8, "temperature": 0})[1]
            self.assertEqual(again["choices"][0]["text"], choice["text"])
            # Tokens came from both vocabulary shards, i.e. from both workers.
            self.assertEqual({toy_model.tokenize(w)[0] % 2 for w in choice["text"].split()}, {0, 1})

        with self.subTest("finish_reason length and stop"):
            body = s.post_json("/v1/completions", {"prompt": "a b c", "max_tokens": 3, "temperature": 0, "ignore_eos": True})[1]
            self.assertEqual((body["choices"][0]["finish_reason"], body["usage"]["completion_tokens"]), ("length", 3))
            full = expected_completion("a b c", 3)
            stop_word = full.split()[1]
            body = s.post_json("/v1/completions", {"prompt": "a b c", "max_tokens": 3, "temperature": 0, "stop": [stop_word]})[1]
            self.assertEqual(body["choices"][0]["finish_reason"], "stop")
            self.assertEqual(body["choices"][0]["stop_reason"], stop_word)
            self.assertEqual(body["choices"][0]["text"], full[: full.index(stop_word)])

        with self.subTest("/v1/chat/completions"):
            status, body = s.post_json(
                "/v1/chat/completions",
                {"messages": [{"role": "user", "content": "hello"}], "temperature": 0, "max_tokens": 6},
            )
            self.assertEqual(status, 200, body)
            self.assertRegex(body["id"], r"^chatcmpl-")
            self.assertEqual(body["object"], "chat.completion")
            message = body["choices"][0]["message"]
            self.assertEqual(message["role"], "assistant")
            self.assertTrue(message["content"] and not message["content"].startswith(" "))
            self.assertIn(body["choices"][0]["finish_reason"], ("length", "stop"))
            self.assertIn("usage", body)

        with self.subTest("streaming completions (SSE)"):
            events = s.stream("/v1/completions", {"prompt": prompt, "max_tokens": 8, "temperature": 0, "stream": True, "stream_options": {"include_usage": True}})
            self.assertEqual(events[-1], "[DONE]")
            chunks = [json.loads(e) for e in events[:-1]]
            self.assertTrue(all(c["object"] == "text_completion" for c in chunks))
            text = "".join(c["choices"][0]["text"] for c in chunks if c["choices"])
            self.assertEqual(text, expected_completion(prompt, 8))
            finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
            self.assertIn(finishes[-1], ("length", "stop"))
            self.assertTrue(all(f is None for f in finishes[:-1]))
            self.assertEqual(chunks[-1]["choices"], [])
            self.assertGreater(chunks[-1]["usage"]["completion_tokens"], 0)

        with self.subTest("streaming chat (SSE)"):
            events = s.stream("/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}], "stream": True, "max_tokens": 5, "temperature": 0})
            self.assertEqual(events[-1], "[DONE]")
            chunks = [json.loads(e) for e in events[:-1]]
            self.assertTrue(all(c["object"] == "chat.completion.chunk" for c in chunks))
            self.assertEqual(chunks[0]["choices"][0]["delta"], {"role": "assistant", "content": ""})
            self.assertIsNotNone(chunks[-1]["choices"][0]["finish_reason"])

        with self.subTest("errors"):
            status, body = s.post_json("/v1/completions", {"model": "other", "prompt": "x"})
            self.assertEqual(status, 404)
            self.assertEqual(body["error"]["type"], "NotFoundError")
            self.assertEqual(body["error"]["message"], "The model `other` does not exist.")
            status, body = s.post_json("/v1/chat/completions", {"model": "standin-toy"})
            self.assertEqual((status, body["error"]["code"]), (400, 400))

        with self.subTest("/metrics"):
            status, headers, raw = s.request("GET", "/metrics")
            self.assertEqual(status, 200)
            self.assertTrue(headers["content-type"].startswith("text/plain; version=0.0.4"))
            metrics = raw.decode()
            labels = '{model_name="standin-toy",engine="0"}'
            for line in (
                f"vllm:num_requests_running{labels} 0.0",
                f"vllm:num_requests_waiting{labels} 0.0",
                f"vllm:kv_cache_usage_perc{labels} 0.0",
                "# TYPE vllm:time_to_first_token_seconds histogram",
                "# TYPE vllm:e2e_request_latency_seconds histogram",
                'vllm:time_to_first_token_seconds_bucket{model_name="standin-toy",engine="0",le="+Inf"}',
            ):
                self.assertIn(line, metrics)
            prompt_total = float(re.search(r"^vllm:prompt_tokens_total\{[^}]*\} (\S+)$", metrics, re.M).group(1))
            generation_total = float(re.search(r"^vllm:generation_tokens_total\{[^}]*\} (\S+)$", metrics, re.M).group(1))
            e2e_count = float(re.search(r"^vllm:e2e_request_latency_seconds_count\{[^}]*\} (\S+)$", metrics, re.M).group(1))
            self.assertGreater(prompt_total, 0)
            self.assertGreater(generation_total, 0)
            self.assertEqual(e2e_count, 7)  # the seven successful generations above

        with self.subTest("a dead worker: /health 503, requests fail, the server exits"):
            os.kill(rank1_worker_pid(s), signal.SIGKILL)
            deadline = time.monotonic() + 30
            while s.health() == 200 and time.monotonic() < deadline:
                time.sleep(0.5)
            self.assertIn(s.health(), (503, "refused"))
            rc = s.proc.wait_exit(timeout=30)
            self.assertEqual(rc, 1)
            self.assertIn("EngineCore encountered a fatal error.", s.proc.output)

    def test_classic_health_noop_and_keep_alive(self) -> None:
        """VLLM_STANDIN_HEALTH_CHECKS_WORKERS=0 is real vLLM's classic executor: /health
        stays 200 until a request hits the dead worker; VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1
        keeps the server up afterwards, answering 503."""
        s = self.start(
            "noop-health",
            VLLM_HOST_IP=self.cluster.node_ip,
            VLLM_STANDIN_HEALTH_CHECKS_WORKERS="0",
            VLLM_KEEP_ALIVE_ON_ENGINE_DEATH="1",
        )
        s.wait_ready()
        os.kill(rank1_worker_pid(s), signal.SIGKILL)
        time.sleep(2)
        self.assertEqual(s.health(), 200)
        status, body = s.post_json("/v1/completions", {"prompt": "x", "max_tokens": 2})
        self.assertEqual(status, 500)
        self.assertIn("EngineCore encountered an issue", body["error"]["message"])
        self.assertEqual(s.health(), 503)
        time.sleep(6)  # past the 5 s watchdog
        self.assertEqual(s.health(), 503)
        self.assertIsNone(s.proc.popen.poll())

    # --- the incident: bundle 0 pinned to an IP no Ray node has ------------

    def test_placement_group_waits_then_fails_when_vllm_host_ip_is_no_ray_node(self) -> None:
        s = self.start(
            "pg-timeout",
            VLLM_HOST_IP=FAKE_DRIVER_IP,
            VLLM_STANDIN_PG_FIRST_WAIT_S="1",
            VLLM_STANDIN_PG_TIMEOUT_S="4",
        )
        created = s.proc.wait_for(r"No current placement group found\. Creating a new placement group\.", timeout=120)
        self.assertIsNotNone(created)
        # The first wait message reports the configured first interval (1 s); no wall-clock assert,
        # the machine is shared and noisy.
        first = s.proc.wait_for(WAIT_LINE, timeout=30)
        self.assertEqual(first.group(1), "1")
        self.assertIn(f"'node:{FAKE_DRIVER_IP}': 0.001", first.group(2))
        self.assertIn("{'GPU': 1.0}", first.group(2))
        self.assertEqual(s.health(), "refused")
        rc = s.proc.wait_exit(timeout=60)
        self.assertNotEqual(rc, 0)
        log = s.proc.output
        waits = [int(m) for m in re.findall(WAIT_LINE.replace("(.*)", ".*"), log)]
        self.assertEqual(waits[:2], [1, 3], "doubling intervals: 1 s, then 2 s more")
        self.assertIn(
            "ValueError: Cannot provide a placement group requiring 2.0 GPUs (placement_group_specs=", log
        )
        self.assertIn("within 4 seconds.", log)
        self.assertIn("Engine core initialization failed. See root cause above.", log)
        self.assertNotIn("Uvicorn running", log)

    def test_loopback_vllm_host_ip_names_no_ray_node(self) -> None:
        """Ray rewrites --node-ip-address 127.0.0.1 to the default-route IP, so
        VLLM_HOST_IP=127.0.0.1 pins bundle 0 to a node that does not exist."""
        self.assertNotEqual(self.cluster.node_ip, "127.0.0.1")
        s = self.start("loopback", VLLM_HOST_IP="127.0.0.1", VLLM_STANDIN_PG_FIRST_WAIT_S="1")
        wait = s.proc.wait_for(WAIT_LINE, timeout=120)
        self.assertIn("'node:127.0.0.1': 0.001", wait.group(2))

    def test_v2_executor_has_no_pin_and_serves_despite_a_wrong_vllm_host_ip(self) -> None:
        s = self.start(
            "v2",
            VLLM_HOST_IP=FAKE_DRIVER_IP,
            VLLM_USE_RAY_V2_EXECUTOR_BACKEND="1",
            VLLM_LOGGING_LEVEL="DEBUG",
            VLLM_STANDIN_PG_FIRST_WAIT_S="1",
        )
        s.wait_ready()
        log = s.proc.output
        self.assertIn("executor=RayExecutorV2", log)
        self.assertNotIn("Waiting for creating a placement group", log)
        # Rank 0 opens the rendezvous on Ray's node IP, not on get_ip().
        inits = re.findall(r"distributed_init_method=tcp://([\d.]+):\d+ backend=nccl", log)
        self.assertEqual(set(inits), {self.cluster.node_ip})
        self.assertRegex(log, r"\(RayWorkerProc pid=\d+")
        status, body = s.post_json("/v1/completions", {"prompt": "hello", "max_tokens": 4, "temperature": 0})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["choices"][0]["text"], expected_completion("hello", 4))


class TwinIpTests(unittest.TestCase):
    """Two nodes that report the same IP (neither raylet has its own VLLM_HOST_IP)."""

    cluster: RayCluster

    @classmethod
    def setUpClass(cls) -> None:
        cls.cluster = RayCluster("twins")
        try:
            cls.cluster.start_head(vllm_host_ip=None)
            cls.cluster.add_node(vllm_host_ip=None)
        except BaseException:
            cls.cluster.stop()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.cluster.stop()

    def test_classic_executor_rejects_nodes_with_the_same_ip(self) -> None:
        s = Standin("twins", self.cluster, TP2, VLLM_HOST_IP=self.cluster.node_ip)
        self.addCleanup(s.stop)
        rc = s.proc.wait_exit(timeout=120)
        self.assertEqual(rc, 1)
        log = s.proc.output
        m = re.search(
            r"RuntimeError: Every node should have a unique IP address\. Got 2 nodes with node ids "
            r"\['[0-9a-f]+', '[0-9a-f]+'\] and 1 unique IP addresses \{'([\d.]+)'\}\. Please check your "
            r"network configuration\. If you set `VLLM_HOST_IP` environment variable, make sure it is "
            r"unique for each node\.",
            log,
        )
        self.assertIsNotNone(m, log[-3000:])
        self.assertEqual(m.group(1), self.cluster.node_ip)

    def test_v2_executor_has_no_unique_ip_check(self) -> None:
        s = Standin("twins-v2", self.cluster, TP2, VLLM_USE_RAY_V2_EXECUTOR_BACKEND="1")
        self.addCleanup(s.stop)
        s.wait_ready()
        self.assertEqual(s.post_json("/v1/completions", {"prompt": "hi", "max_tokens": 2})[0], 200)


if __name__ == "__main__":
    unittest.main()
