#!/usr/bin/env python3
"""A loopback HTTP server for the fetcher's tests: replays recorded provider responses and fakes
the failures a real network gives.

    replay_server.py --rules RULES.json --port-file PORT --log LOG

It listens on 127.0.0.1 on an ephemeral port and writes the port number to PORT (written to a
temporary name and renamed, so a reader never sees half a number). RULES.json is re-read on every
request, so a test can change the behaviour between fetches. It is a list of rules; the first whose
"match" is a substring of the request path (with its query) wins; no match answers 404:

    {"match": "/v8/finance/chart/AAPL", "status": 200, "content_type": "application/json",
     "body_file": "/path/to/recorded.json", "headers": {"Retry-After": "120"}, "mode": "normal"}

"body" may replace "body_file". Modes:
    normal         the body with its Content-Length
    slow           the headers, then one byte of the body per second
    hang           accept the connection, read the request, never answer
    reset          read the request, then close with a TCP reset (SO_LINGER 0)
    truncate       announce the full length, send half the body, close
    oversize       no Content-Length, then "size" bytes (default 4 MiB) of CSV-looking data
    redirect-loop  302 to the same path, forever

"agent_contains": "Mozilla" answers 429 "Edge: Too Many Requests" to a User-Agent without it, as
Yahoo's edge does. Every request's User-Agent is appended to LOG.agents.

Every request is appended to LOG as "<unix time> <path>" and flushed before the answer, so the
log is the count of requests the server saw.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_lock = threading.Lock()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):  # quiet: the request log is the record
            pass

        def do_GET(self):
            with log_lock:
                with open(args.log, "a") as f:
                    f.write("%.3f %s\n" % (time.time(), self.path))
                    f.flush()
            try:
                with open(args.rules) as f:
                    rules = json.load(f)
            except (OSError, ValueError) as e:
                return self.answer(500, "text/plain", ("bad rules: %s" % e).encode())
            rule = next((r for r in rules if r.get("match", "") in self.path), None)
            agent = self.headers.get("User-Agent", "")
            with log_lock:
                with open(args.log + ".agents", "a") as f:
                    f.write(agent + "\n")
            if rule is None:
                return self.answer(404, "text/plain", b"no rule for this path\n")
            # As Yahoo's edge answers agents it takes for scripts (public reports, issue 48).
            if "agent_contains" in rule and rule["agent_contains"] not in agent:
                return self.answer(429, "text/plain", b"Edge: Too Many Requests")
            body = rule.get("body", "").encode()
            if "body_file" in rule:
                with open(rule["body_file"], "rb") as f:
                    body = f.read()
            mode = rule.get("mode", "normal")
            status = rule.get("status", 200)
            ctype = rule.get("content_type", "application/json;charset=utf-8")
            headers = rule.get("headers", {})
            if mode == "hang":
                # Hold the connection open without a byte until the client gives up.
                while True:
                    try:
                        if not self.connection.recv(1024):
                            return
                    except OSError:
                        return
            if mode == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            if mode == "redirect-loop":
                self.send_response(302)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if mode == "oversize":
                size = int(rule.get("size", 4 << 20))
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Connection", "close")
                self.end_headers()
                line = b"2024-01-02,1,1,1,1,1,1\n"
                self.wfile.write(b"Date,Open,High,Low,Close,Adj Close,Volume\n")
                sent = 0
                try:
                    while sent < size:
                        self.wfile.write(line * 1024)
                        sent += len(line) * 1024
                except OSError:
                    pass
                self.close_connection = True
                return
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            if mode in ("truncate", "slow"):
                self.send_header("Connection", "close")
            self.end_headers()
            try:
                if mode == "truncate":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                elif mode == "slow":
                    for i in range(len(body)):
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(1)
                else:
                    self.wfile.write(body)
            except OSError:
                self.close_connection = True

        def answer(self, status, ctype, body):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(temporary, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
