"""Raw HTTP capture: send one request over a plain socket and keep the response bytes exactly as
they came (status line, headers, chunked framing), with the arrival time of every read."""

import json
import os
import socket
import time


def request(host, port, method, path, body=None, timeout=60.0, raw_body=None):
    payload = raw_body if raw_body is not None else (json.dumps(body).encode() if body is not None else b"")
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: vllm-ray-deploy-capture\r\nAccept: */*\r\nConnection: close\r\n"
    if body is not None or raw_body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    req = head.encode() + b"\r\n" + payload
    t0 = time.monotonic()
    reads = []
    data = b""
    err = None
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(req)
            while True:
                b = s.recv(65536)
                if not b:
                    break
                reads.append((round(time.monotonic() - t0, 6), len(b)))
                data += b
    except OSError as e:  # refused, reset, timeout: recorded, not raised
        err = f"{type(e).__name__}: {e}"
    return req, data, reads, err


def save(dirname, name, host, port, method, path, body=None, timeout=60.0, raw_body=None):
    os.makedirs(dirname, exist_ok=True)
    req, data, reads, err = request(host, port, method, path, body, timeout, raw_body)
    with open(os.path.join(dirname, name + ".request.http"), "wb") as f:
        f.write(req)
    with open(os.path.join(dirname, name + ".response.http"), "wb") as f:
        f.write(data)
    with open(os.path.join(dirname, name + ".reads.json"), "w") as f:
        json.dump({"method": method, "path": path, "reads": reads, "error": err}, f)
    status = data.split(b"\r\n", 1)[0].decode(errors="replace") if data else err
    print(f"  {name}: {method} {path} -> {status} ({len(data)} bytes)", flush=True)
    return data


def status_of(host, port, path, timeout=3.0):
    _, data, _, err = request(host, port, "GET", path, timeout=timeout)
    if err or not data:
        return None
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None
