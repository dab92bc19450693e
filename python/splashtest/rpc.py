"""splashd's control socket: line-delimited JSON-RPC 2.0 over a Unix socket.

As a module: `Rpc`, one connection, requests one at a time (as the protocol says). As a script, for
shell tests: `python3 -m splashtest.rpc SOCKET METHOD [PARAMS_JSON]` sends one request and prints the
answer line; exit 0 for a result, 1 for an error, 2 when the socket cannot be used.
"""
import json
import socket
import sys
import time

from .errors import Failure


class RpcError(Exception):
    """An error answer: `.error` is the JSON-RPC error object, `.kind` its `data.kind`."""

    def __init__(self, method, error):
        super().__init__(f"{method}: {error.get('code')} {error.get('message')} {error.get('data')}")
        self.error = error
        self.kind = (error.get("data") or {}).get("kind")


class Rpc:
    """One connection to the control socket. Event notifications that arrive while waiting for an
    answer are dropped, or kept in `.events` as (perf_counter time read, params) with `keep_events`."""

    def __init__(self, path, timeout=60.0, keep_events=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0
        self.keep_events = keep_events
        self.events = []

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send_line(self, data: bytes):
        self.sock.sendall(data + b"\n")

    def read_line(self, timeout=None):
        """The next line without its newline; what is left when the daemon closes; None at the end."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def send_request(self, method, params=None):
        """Sends a request; its id."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_line(json.dumps(message).encode())
        return self.next_id

    def read_answer(self, method, request_id):
        """Reads until the answer to `request_id` (events set aside, stray answers skipped)."""
        while True:
            line = self.read_line()
            if line is None:
                raise Failure(f"{method}: connection closed")
            answer = json.loads(line)
            if answer.get("method") == "event":
                if self.keep_events:
                    self.events.append((time.perf_counter(), answer["params"]))
                continue
            if answer.get("id") not in (request_id, None):
                continue
            return answer

    def call_raw(self, method, params=None):
        """The whole answer object, error or result."""
        return self.read_answer(method, self.send_request(method, params))

    def call(self, method, params=None):
        answer = self.call_raw(method, params)
        if "error" in answer:
            raise RpcError(method, answer["error"])
        return answer["result"]

    def next_event(self, timeout):
        """The next event notification: (perf_counter time it was read, params), or None at the timeout."""
        if self.events:
            return self.events.pop(0)
        try:
            line = self.read_line(timeout)
        except socket.timeout:
            return None
        finally:
            self.sock.settimeout(self.timeout)
        message = json.loads(line) if line else None
        if message and message.get("method") == "event":
            return time.perf_counter(), message["params"]
        return None


def main(argv):
    if len(argv) < 2:
        print("usage: python3 -m splashtest.rpc SOCKET METHOD [PARAMS_JSON]", file=sys.stderr)
        return 2
    path, method = argv[0], argv[1]
    params = json.loads(argv[2]) if len(argv) > 2 else None
    try:
        connection = Rpc(path, timeout=20)
        connection.send_request(method, params)
        line = connection.read_line()
        connection.close()
    except OSError as error:
        print(f"rpc: {path}: {error}", file=sys.stderr)
        return 2
    if line is None:
        print(f"rpc: {path}: the daemon closed the connection", file=sys.stderr)
        return 2
    # The answer line as the daemon sent it: shell tests match its exact text.
    print(line.decode(errors="replace").strip())
    return 0 if "result" in json.loads(line) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
