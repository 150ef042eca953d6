"""Faults in a chosen phase on a chosen node (vllm/standin/faults.py, issue 39)."""

from __future__ import annotations

import os
import socket
import threading
import unittest
from unittest import mock

from vllm.standin import faults


class FaultTests(unittest.TestCase):
    def env(self, **values: str):
        return mock.patch.dict(os.environ, values, clear=False)

    def test_dies_in_the_chosen_phase_on_the_chosen_node_with_an_error_line_first(self) -> None:
        with self.env(VLLM_STANDIN_DIE_IN="weights-loading", VLLM_STANDIN_FAULT_NODE=socket.gethostname()):
            faults.at_phase("distributed-init", 1)  # another phase: nothing happens
            with self.assertLogs("vllm.standin.faults", level="ERROR") as said:
                with self.assertRaisesRegex(RuntimeError, "rank 1 died in weights-loading"):
                    faults.at_phase("weights-loading", 1)
            self.assertIn("This might cause deadlock in distributed execution", said.output[0])

    def test_another_node_goes_on(self) -> None:
        with self.env(VLLM_STANDIN_DIE_IN="weights-loading", VLLM_STANDIN_STALL_IN="weights-loading", VLLM_STANDIN_FAULT_NODE="192.0.2.77"):
            faults.at_phase("weights-loading", 0)

    def test_stalls_in_the_chosen_phase(self) -> None:
        with self.env(VLLM_STANDIN_STALL_IN="kv-cache-profiling", VLLM_STANDIN_FAULT_NODE=""):
            t = threading.Thread(target=faults.at_phase, args=("kv-cache-profiling", 0), daemon=True)
            t.start()
            t.join(0.5)
            self.assertTrue(t.is_alive())


if __name__ == "__main__":
    unittest.main()
