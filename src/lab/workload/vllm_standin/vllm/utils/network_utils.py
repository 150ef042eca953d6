"""IP and port helpers, as in vllm/utils/network_utils.py."""

from __future__ import annotations

import os
import socket
import warnings

import vllm.envs as envs
from vllm.logger import init_logger

logger = init_logger(__name__)


def get_ip() -> str:
    """The IP vLLM uses for this node.

    ``VLLM_HOST_IP`` if set; otherwise the source address of a UDP socket
    "connected" to 8.8.8.8:80 (connect() on UDP only picks a route, it sends
    no packet), i.e. the address of the default-route interface; then the
    IPv6 equivalent; then 0.0.0.0 with vLLM's warning.
    """
    host_ip = envs.VLLM_HOST_IP
    if "HOST_IP" in os.environ and "VLLM_HOST_IP" not in os.environ:
        logger.warning(
            "The environment variable HOST_IP is deprecated and ignored, as"
            " it is often used by Docker and other software to"
            " interact with the container's network stack. Please "
            "use VLLM_HOST_IP instead to set the IP address for vLLM processes"
            " to communicate with each other."
        )
    if host_ip:
        return host_ip

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("8.8.8.8", 80))  # picks a route; sends nothing
            return s.getsockname()[0]
    except Exception:
        pass

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            s.connect(("2001:4860:4860::8888", 80))  # picks a route; sends nothing
            return s.getsockname()[0]
    except Exception:
        pass

    warnings.warn(
        "Failed to get the IP address, using 0.0.0.0 by default. "
        "The value can be set by the environment variable"
        " VLLM_HOST_IP or HOST_IP.",
        stacklevel=2,
    )
    return "0.0.0.0"


def get_open_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def get_tcp_uri(ip: str, port: int) -> str:
    if ":" in ip:  # IPv6
        return f"tcp://[{ip}]:{port}"
    return f"tcp://{ip}:{port}"


def get_distributed_init_method(ip: str, port: int) -> str:
    return get_tcp_uri(ip, port)


def parse_tcp_uri(uri: str) -> tuple[str, int]:
    rest = uri.removeprefix("tcp://")
    host, _, port = rest.rpartition(":")
    return host.strip("[]"), int(port)
