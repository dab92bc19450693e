#!/usr/bin/env python3
"""Test HTTP server for HTTPTests: standard library only, 127.0.0.1 only.

Prints the port it listens on as the first line of stdout, then serves until stdin closes (so a crashed
test run never leaves it behind) or it is killed. With --cert/--key it serves HTTPS.
"""
import argparse, gzip, json, os, socketserver, ssl, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

lock = threading.Lock()
stats = {"connections": 0, "requests": 0, "current": 0, "max_concurrent": 0, "ranges": []}


def file_bytes(size):
    return bytes((i * 7 + 3) % 251 for i in range(size))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is observable

    def setup(self):
        super().setup()
        self.served = 0
        with lock:
            stats["connections"] += 1

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_PATCH(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def do_HEAD(self):
        self.route()

    def route(self):
        url = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with lock:
            stats["requests"] += 1
        self.served += 1
        getattr(self, "r_" + url.path.strip("/").replace("-", "_") or "r_root", self.r_missing)(q, body)

    def r_missing(self, q, body):
        self.send(404, b"no such route")

    def r_echo(self, q, body):
        out = {"method": self.command, "path": self.path,
               "headers": {k.lower(): v for k, v in self.headers.items()},
               "body": body.decode("utf-8", "replace")}
        self.send(200, json.dumps(out).encode(), [("Content-Type", "application/json"), ("X-Multi", "a"), ("X-Multi", "b")])

    def r_dies_once_reused(self, q, body):
        # The body read, then the connection closed without an answer, once and only on a reused
        # connection: libcurl retries on a fresh one, and must send the body again from its start.
        with lock:
            dies = self.served > 1 and not stats.get("died")
            if dies:
                stats["died"] = len(body)
        if dies:
            self.close_connection = True
            return
        self.r_echo(q, body)

    def r_stats(self, q, body):
        with lock:
            self.send(200, json.dumps(stats).encode(), [("Content-Type", "application/json")])

    def r_status(self, q, body):
        self.send(int(q.get("code", "200")), b"status body")

    def r_slow(self, q, body):
        with lock:
            stats["current"] += 1
            stats["max_concurrent"] = max(stats["max_concurrent"], stats["current"])
        time.sleep(int(q.get("ms", "100")) / 1000)
        with lock:
            stats["current"] -= 1
        self.send(200, q.get("id", "ok").encode())

    def r_hang(self, q, body):
        time.sleep(60)  # never answers in time; the client must give up or cancel

    def r_stall(self, q, body):
        # Headers and a few bytes, then nothing: only a low-speed limit or a deadline ends this.
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"x" * 10)
        self.wfile.flush()
        time.sleep(60)

    def r_big(self, q, body):
        n = int(q["n"])
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.end_headers()
        chunk = b"a" * 65536
        try:
            while n > 0:
                self.wfile.write(chunk[:n])
                n -= min(n, len(chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def r_gzip(self, q, body):
        text = ("hello gzip " * 1000).encode()
        if "gzip" in (self.headers.get("Accept-Encoding") or ""):
            self.send(200, gzip.compress(text), [("Content-Encoding", "gzip")])
        else:
            self.send(200, text)

    def r_bomb(self, q, body):
        # 8 MiB of zeros compress to a few KiB: only a limit on decoded bytes stops this.
        self.send(200, gzip.compress(bytes(8 << 20)), [("Content-Encoding", "gzip")])

    def r_loop(self, q, body):
        self.send(302, b"", [("Location", "/loop")])

    def r_redirect(self, q, body):
        self.send(int(q.get("code", "302")), b"", [("Location", q.get("to", "/echo"))])

    def r_file(self, q, body):
        data = file_bytes(int(q["size"]))
        rng = self.headers.get("Range")
        with lock:
            stats["ranges"].append(rng)
        if rng and rng.startswith("bytes=") and rng.endswith("-") and q.get("ranges", "yes") == "yes":
            start = int(rng[6:-1])
            if start >= len(data):
                self.send(416, b"", [("Content-Range", "bytes */%d" % len(data))])
                return
            self.send(206, data[start:], [("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))])
        else:
            self.send(200, data)

    def r_endless(self, q, body):
        # No length, no end (bounded at 256 MiB so a broken client cannot keep the server busy for ever).
        self.send_response(200)
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"\xff\xd8\xff" + b"a" * 65533
        try:
            for _ in range(4096):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def r_truncated(self, q, body):
        data = file_bytes(int(q["size"]))
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.close_connection = True


class LoopbackServer(ThreadingHTTPServer):
    """HTTPServer.server_bind names the server by socket.getfqdn, a reverse DNS lookup: 0.7 s here, and up
    to 20 s when tests start servers side by side, while the Swift test that started it blocks a thread
    of its cooperative pool reading the port (two of them stalled every test for 21 s). Loopback needs
    no name."""

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    server = LoopbackServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
