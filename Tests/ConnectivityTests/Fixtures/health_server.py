#!/usr/bin/env python3
"""Stand-in for the backend's /auth/v1/health, for ConnectivityTests. Standard library only, 127.0.0.1 only.

Prints the port it listens on as the first line of stdout, then serves until stdin closes (so a crashed test
never leaves it behind) or it is killed.
  GET /auth/v1/health      answers with the current status (200 at start); counted
  GET /_control?status=N   sets the status the health endpoint answers with
  GET /_stats              {"health": <health requests so far>}
With --apikey KEY the health endpoint answers 401 unless the `apikey` header is KEY. --port reuses a port.
"""
import argparse, json, socketserver, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

lock = threading.Lock()
state = {"status": 200, "health": 0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/auth/v1/health":
            with lock:
                state["health"] += 1
                status = state["status"]
            if args.apikey is not None and self.headers.get("apikey") != args.apikey:
                return self.answer(401, {"message": "No API key found in request"})
            return self.answer(status, {"name": "GoTrue"} if status < 300 else {"error": "unavailable"})
        if url.path == "/_control":
            q = parse_qs(url.query)
            with lock:
                state["status"] = int(q["status"][0])
            return self.answer(200, {})
        if url.path == "/_stats":
            with lock:
                return self.answer(200, {"health": state["health"]})
        self.answer(404, {})


parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--apikey")
args = parser.parse_args()

class LoopbackServer(ThreadingHTTPServer):
    """Skips HTTPServer.server_bind's socket.getfqdn, a reverse DNS lookup (0.7 s to 20 s here) during which
    the Swift test that started this server blocks a thread of its cooperative pool reading the port."""

    allow_reuse_address = True
    daemon_threads = True

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


server = LoopbackServer(("127.0.0.1", args.port), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
