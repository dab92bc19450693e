"""Sends one JSON-RPC request to splashd's control socket and prints the response line.

    python3 rpc.py SOCKET METHOD [PARAMS_JSON]

Exit 0 when the response has a result, 1 when it has an error, 2 when the socket cannot be used.
(For methods splashctl does not offer yet, such as auth.login.)
"""
import json
import socket
import sys

path, method = sys.argv[1], sys.argv[2]
params = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
request = {"jsonrpc": "2.0", "id": 1, "method": method}
if params is not None:
    request["params"] = params
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    s.sendall((json.dumps(request) + "\n").encode())
    line = s.makefile("rb").readline().decode()
except OSError as e:
    print(f"rpc.py: {path}: {e}", file=sys.stderr)
    sys.exit(2)
print(line.strip())
sys.exit(0 if "result" in json.loads(line) else 1)
