"""What the chaos suite, the benchmark and the system tests share: devstack, the control socket's
JSON-RPC and splashd as a child process. One copy of each; chaos/lib.py and bench/benchlib.py add only
what is theirs (release binaries, figures, seeding, statistics).

Put the `python/` folder on sys.path (`sys.path.insert(0, os.path.join(ROOT, "python"))`) and
`from splashtest import Daemon, Devstack, Rpc`.
"""
from .daemon import Daemon, rss_kb
from .devstack import Devstack
from .errors import Failure
from .net import http, http_json
from .rpc import Rpc, RpcError
from .waiting import wait_until

__all__ = ["Daemon", "Devstack", "Failure", "Rpc", "RpcError", "http", "http_json", "rss_kb", "wait_until"]
