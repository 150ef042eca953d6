#!/usr/bin/env python3
"""A Hugging Face hub mirror for the lab: one model directory served at one pinned commit.

    hub_mirror.py --bind ADDR --port N --repo org/name --dir MODEL_DIR --token-file F [--control DIR]

Stdlib only. It answers the endpoints huggingface_hub calls for `snapshot_download` and
`list_repo_tree` (read in huggingface_hub 2.4.0: hf_api.py `repo_info` / `list_repo_tree`,
file_download.py `get_hf_file_metadata` / `http_get`, utils/_http.py `hf_raise_for_status`):

  GET  /api/models/{repo}/revision/{rev}       {"id", "sha", "siblings": [{"rfilename"}]}
  GET  /api/models/{repo}/tree/{rev}[/{path}]   [{"type": "file", "path", "size", "oid", "lfs"?}, {"type": "directory", ...}]
  HEAD /{repo}/resolve/{rev}/{path}             X-Repo-Commit, ETag, X-Linked-Etag + X-Linked-Size (LFS), Content-Length
  GET  /{repo}/resolve/{rev}/{path}             the bytes (Range: bytes=N- honoured: 206)

`rev` is the commit (sha1 over the listing, so it changes with the files), or `main`. Every request
needs `Authorization: Bearer <the token in --token-file>`; any other is answered 401 with the hub's
`X-Error-Message: Invalid credentials in Authorization header`. LFS files (*.safetensors, *.bin,
*.pt, or 1 MiB and more) are listed with the sha256 and size the hub keeps for them; the others with
their git blob id, as on the hub.

Every request is logged to stdout as one JSON line: {"event": "request", "method", "path", "status",
"auth": "ok" | "bad" | "none", "bytes"} (never the token). The first line is {"event": "listening",
"port"}. When `--control DIR/stall` exists, a GET of a file named in it (one per line) sends half its
bytes, logs {"event": "stalled", "path"}, and keeps the connection open until the client goes away
(for interruption tests: a download caught mid-file). When `--control DIR/corrupt` names a file, its
GET sends every byte flipped (the right size, the wrong content) and logs {"event": "corrupted",
"path"}, while the listing keeps the true digests: a mirror serving a bad copy. When `--control
DIR/endless` names a file, its GET has no Content-Length and sends the file's bytes over and over
until the client goes away, logging {"event": "endless", "path"}: a hostile or broken mirror.
When `--control DIR/redirect` holds a base URL, a HEAD or GET of an LFS file is answered 302 with
`Location: <base><the same path>` and the hub's headers, as the real hub sends LFS files to its CDN
on another host. `--open` serves without asking for the token (such a CDN), still logging whether
one came.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
LFS_MIN = 1 << 20
LOG_LOCK = threading.Lock()


def log(doc):
    with LOG_LOCK:
        sys.stdout.write(json.dumps(doc) + "\n")
        sys.stdout.flush()


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def scan(root):
    files = {}
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for n in sorted(names):
            if n.startswith("."):
                continue
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            with open(full, "rb") as f:
                data = f.read()
            size = len(data)
            entry = {"type": "file", "path": rel, "size": size, "full": full}
            if n.endswith(LFS_SUFFIXES) or size >= LFS_MIN:
                sha = hashlib.sha256(data).hexdigest()
                pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (sha, size)).encode()
                entry["oid"] = git_blob_id(pointer)
                entry["lfs"] = {"oid": sha, "size": size, "pointerSize": len(pointer)}
                entry["etag"] = sha
            else:
                entry["oid"] = git_blob_id(data)
                entry["etag"] = entry["oid"]
            files[rel] = entry
    commit = hashlib.sha1(json.dumps([[p, e["oid"]] for p, e in sorted(files.items())]).encode()).hexdigest()
    return files, commit


def public(entry):
    return {k: v for k, v in entry.items() if k in ("type", "path", "size", "oid", "lfs")}


class Mirror(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "vrd-lab-hub-mirror"

    def log_message(self, fmt, *args):  # the JSON log replaces http.server's stderr lines
        pass

    def reply(self, status, body=b"", headers=None, sent=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if "Content-Length" not in (headers or {}):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)
        self.logged(status, len(body) if self.command != "HEAD" else 0 if sent is None else sent)

    def logged(self, status, nbytes):
        log({"event": "request", "method": self.command, "path": urlsplit(self.path).path, "status": status, "auth": self.auth, "bytes": nbytes})

    def json(self, status, doc, headers=None):
        self.reply(status, json.dumps(doc).encode(), {"Content-Type": "application/json", **(headers or {})})

    def error(self, status, message, code=None):
        headers = {"X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        self.json(status, {"error": message}, headers)

    def check_auth(self):
        given = self.headers.get("Authorization")
        if given is None:
            self.auth = "none"
        else:
            self.auth = "ok" if given == "Bearer " + self.server.token else "bad"
        return self.auth == "ok" or self.server.open

    def do_HEAD(self):
        self.handle_any()

    def do_GET(self):
        self.handle_any()

    def handle_any(self):
        self.auth = "none"
        try:
            if not self.check_auth():
                return self.error(401, "Invalid credentials in Authorization header")
            path = unquote(urlsplit(self.path).path)
            repo = self.server.repo
            api = "/api/models/" + repo + "/"
            if path.startswith(api + "revision/"):
                return self.revision(path[len(api + "revision/"):])
            if path.startswith(api + "tree/"):
                return self.tree(path[len(api + "tree/"):])
            if path.startswith("/" + repo + "/resolve/"):
                return self.resolve(path[len("/" + repo + "/resolve/"):])
            if path.startswith("/api/models/") or "/resolve/" in path:
                return self.error(401, "Repository Not Found", "RepoNotFound")
            return self.error(404, "Not Found")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def commit_of(self, rev):
        return self.server.commit if rev in (self.server.commit, "main") else None

    def revision(self, rev):
        if self.commit_of(rev) is None:
            return self.error(404, "Invalid rev id: " + rev, "RevisionNotFound")
        files = self.server.files
        self.json(200, {"id": self.server.repo, "modelId": self.server.repo, "sha": self.server.commit, "private": True,
                        "siblings": [{"rfilename": p} for p in sorted(files)]})

    def tree(self, rest):
        rev, _, sub = rest.partition("/")
        if self.commit_of(rev) is None:
            return self.error(404, "Invalid rev id: " + rev, "RevisionNotFound")
        query = urlsplit(self.path).query
        recursive = "recursive=True" in query or "recursive=true" in query
        prefix = sub.rstrip("/") + "/" if sub else ""
        out, dirs = [], set()
        for p, e in sorted(self.server.files.items()):
            if not p.startswith(prefix):
                continue
            tail = p[len(prefix):]
            parts = tail.split("/")
            for i in range(1, len(parts)):
                d = prefix + "/".join(parts[:i])
                if d not in dirs and (recursive or i == 1):
                    dirs.add(d)
                    out.append({"type": "directory", "path": d, "oid": hashlib.sha1(d.encode()).hexdigest()})
            if recursive or len(parts) == 1:
                out.append(public(e))
        self.json(200, out)

    def resolve(self, rest):
        rev, _, rel = rest.partition("/")
        commit = self.commit_of(rev)
        if commit is None:
            return self.error(404, "Invalid rev id: " + rev, "RevisionNotFound")
        e = self.server.files.get(rel)
        if e is None:
            return self.error(404, "Entry not found", "EntryNotFound")
        size = e["size"]
        headers = {"X-Repo-Commit": commit, "ETag": '"%s"' % e["etag"], "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream"}
        if "lfs" in e:
            headers["X-Linked-Etag"] = '"%s"' % e["etag"]
            headers["X-Linked-Size"] = str(size)
        start = 0
        rng = self.headers.get("Range")
        if self.command == "GET" and rng and rng.startswith("bytes=") and rng[6:].split("-")[0].isdigit():
            start = min(int(rng[6:].split("-")[0]), size)
        status = 206 if start else 200
        if start:
            headers["Content-Range"] = "bytes %d-%d/%d" % (start, size - 1, size)
        headers["Content-Length"] = str(size - start)
        redirect = self.control_list("redirect")
        if "lfs" in e and redirect:
            headers["Location"] = sorted(redirect)[0].rstrip("/") + self.path
            headers["Content-Length"] = "0"
            return self.reply(302, b"", headers, sent=0)
        if self.command == "HEAD":
            return self.reply(200, b"", headers, sent=0)
        if rel in self.control_list("endless"):
            return self.endless(e["full"], headers)
        with open(e["full"], "rb") as f:
            f.seek(start)
            data = f.read()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if rel in self.control_list("corrupt"):
            # The right size, the wrong bytes: every byte flipped, as a mirror serving a bad copy would.
            data = bytes(b ^ 0xFF for b in data)
            log({"event": "corrupted", "path": rel, "bytes": len(data)})
        if rel in self.stalled_files():
            half = len(data) // 2
            self.wfile.write(data[:half])
            self.wfile.flush()
            log({"event": "stalled", "path": rel, "bytes": half})
            self.close_connection = True
            # Hold the connection until the client goes away (its container is killed).
            while True:
                time.sleep(0.5)
                try:
                    self.connection.setblocking(False)
                    if self.connection.recv(1) == b"":
                        break
                except BlockingIOError:
                    continue
                except OSError:
                    break
            self.logged(status, half)
            return
        self.wfile.write(data)
        self.logged(status, len(data))

    def endless(self, path, headers):
        """A body without end: no Content-Length, the file's bytes again and again until the client goes."""
        with open(path, "rb") as f:
            data = f.read() or b"\0"
        self.send_response(200)
        for k, v in headers.items():
            if k != "Content-Length":
                self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        log({"event": "endless", "path": path})
        sent = 0
        try:
            while True:
                self.wfile.write(data)
                sent += len(data)
        except OSError:
            pass
        self.logged(200, sent)

    def stalled_files(self):
        return self.control_list("stall")

    def control_list(self, name):
        control = self.server.control
        if not control:
            return set()
        try:
            with open(os.path.join(control, name)) as f:
                return {l.strip() for l in f if l.strip()}
        except FileNotFoundError:
            return set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--open", action="store_true")
    ap.add_argument("--control")
    a = ap.parse_args()
    server = ThreadingHTTPServer((a.bind, a.port), Mirror)
    server.daemon_threads = True
    server.repo = a.repo
    server.files, server.commit = scan(a.dir)
    with open(a.token_file) as f:
        server.token = f.read().strip()
    server.control = a.control
    server.open = a.open
    log({"event": "listening", "port": server.server_address[1], "repo": a.repo, "commit": server.commit,
         "files": [public(e) for _, e in sorted(server.files.items())]})
    server.serve_forever()


if __name__ == "__main__":
    main()
