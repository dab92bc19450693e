"""Sends one JSON-RPC request to splashd's control socket and prints the answer line.

    python3 rpc.py SOCKET METHOD [PARAMS_JSON]

The command line of python/splashtest's Rpc (exit 0 for a result, 1 for an error, 2 when the socket
cannot be used), for methods splashctl does not offer. boot.sh stages it beside a copy of the package.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "python")]  # the staged copy, else the repository's
from splashtest.rpc import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
