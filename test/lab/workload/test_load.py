"""The memory a stand-in worker's load takes (VLLM_STANDIN_LOAD_BYTES, issue 38): allocated and written
while it loads its weights, resident, and held; the lab's memory budget (src/lab/assets/vrd-lab-memory)
sees it as a GB10's host sees a real load."""

from __future__ import annotations

import os
import unittest
from unittest import mock

import vllm.envs as envs
from vllm.standin import worker

MIB = 1024 * 1024


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


class LoadTests(unittest.TestCase):
    def test_the_bytes_are_resident_in_pieces_and_held(self) -> None:
        n = 2 * worker.LOAD_PIECE_BYTES + 5 * MIB + 3
        before = rss_bytes()
        with mock.patch.object(worker, "LOAD_PIECE_PAUSE_S", 0):
            pieces = worker.load_bytes(n)
        grew = rss_bytes() - before
        self.assertEqual([len(p) for p in pieces], [worker.LOAD_PIECE_BYTES, worker.LOAD_PIECE_BYTES, 5 * MIB + 3])
        self.assertGreater(grew, 0.9 * n, "the pages were not touched: an untouched allocation takes no memory")
        self.assertEqual(pieces[-1][-1], 0x5A)

    def test_none_by_default_and_never_negative(self) -> None:
        with mock.patch.dict(os.environ, {"VLLM_STANDIN_LOAD_BYTES": ""}):
            self.assertEqual(envs.VLLM_STANDIN_LOAD_BYTES, 0)
        with mock.patch.dict(os.environ, {"VLLM_STANDIN_LOAD_BYTES": "-5"}):
            self.assertEqual(envs.VLLM_STANDIN_LOAD_BYTES, 0)
        with mock.patch.dict(os.environ, {"VLLM_STANDIN_LOAD_BYTES": "1234"}):
            self.assertEqual(envs.VLLM_STANDIN_LOAD_BYTES, 1234)
        self.assertEqual(worker.load_bytes(0), [])


if __name__ == "__main__":
    unittest.main()
