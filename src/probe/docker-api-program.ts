/**
 * A Python helper the node-side programs (the facts probe, the teardown check) put in front of
 * themselves: a read of dockerd's API over its unix socket, for the answers a `docker info` or
 * `docker inspect` would print. Each docker CLI start costs a node 10–25 ms of CPU before the daemon
 * is asked anything, and `docker info` also runs every CLI plugin (buildx, compose, ...) to list it
 * (docker/cli cli/command/system/info.go: `pluginmanager.ListPlugins` before the format is applied);
 * the socket read costs the daemon's answer only (issue 40). The answer is the same document: the
 * CLI prints the API's JSON (`docker inspect` as a one-element list; `docker info`'s `{{json .}}` with
 * the client's fields added).
 *
 * It answers only where the CLI would ask that same socket: a `docker` on PATH (no docker CLI is
 * still no docker), no DOCKER_CONTEXT, DOCKER_HOST unset or a unix socket, and no docker context
 * chosen in the CLI's config (`currentContext`). Anything else, and any failure (no socket, no
 * permission, an answer that is not HTTP or not JSON), returns None, and the caller runs the CLI as
 * before, so what a broken docker says still comes from the CLI.
 */
export const DOCKER_API_PY = String.raw`
def docker_api(path, timeout=10):
    import json as _json, os as _os, socket as _socket
    if _os.environ.get("DOCKER_CONTEXT"):
        return None
    if not any(_os.access(_os.path.join(d, "docker"), _os.X_OK) for d in _os.get_exec_path()):
        return None
    host = _os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return None
    try:
        with open(_os.path.join(_os.environ.get("DOCKER_CONFIG") or _os.path.expanduser("~/.docker"), "config.json")) as f:
            ctx = _json.load(f).get("currentContext")
        if ctx and ctx != "default":
            return None
    except FileNotFoundError:
        pass
    except Exception:
        return None
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(timeout)
        s.connect(host[len("unix://"):] if host else "/var/run/docker.sock")
        # HTTP/1.0: the daemon answers with the whole body and closes (no chunks, no keep-alive).
        s.sendall(("GET %s HTTP/1.0\r\nHost: docker\r\n\r\n" % path).encode())
        data = []
        while True:
            b = s.recv(1 << 16)
            if not b:
                break
            data.append(b)
        head, _, body = b"".join(data).partition(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0].split(b" ")
        if not status[0].startswith(b"HTTP/") or b"chunked" in head.lower():
            return None
        return int(status[1]), _json.loads(body)
    except Exception:
        return None
    finally:
        s.close()
`
