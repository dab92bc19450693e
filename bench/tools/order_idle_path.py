#!/usr/bin/env python3
"""Remakes scripts/idle-path.symbols: the functions an idle daemon runs, which the release link lays out
together (scripts/release-flags). Run as root on a quiet machine once bench/run has installed its anchors
(valgrind among them) and built the release binaries:

    bench/tools/order_idle_path.py [--seconds 120]

It runs scenario 5's daemon (100,000 photos, signed in, online) under callgrind, lets it settle, zeroes
callgrind's counts, waits, and lists every function of the executable with a cost in that window: what the
watchdog's pings and the live channel's heartbeats run. callgrind sees every function, where page faults
see one per 64 KiB window and sampling misses the rare ones. Valgrind 3.19 cannot read the DWARF 5 the
toolchain writes, so the daemon runs from a copy without debug information. Rebuild afterwards (a clean
scratch directory: see the Makefile's install target)."""
import argparse
import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORDER = os.path.join(ROOT, "scripts", "idle-path.symbols")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchlib import SPLASHD, WORK, Devstack  # noqa: E402


def functions_with_cost(dump, executable):
    """Functions of `executable` with a cost line in a callgrind dump, in the order the dump names them."""
    names, current_object, current_function, found = {}, None, None, {}
    for line in open(dump, errors="replace"):
        m = re.match(r"^c?(ob|fn|fl|fi|fe)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            kind, ident, name = m.groups()
            if name is not None:
                names[(kind, ident)] = name
            if line.startswith(("ob=", "fn=")):
                value = names.get((kind, ident))
                current_object, current_function = (value, current_function) if kind == "ob" else (current_object, value)
        elif current_function and current_object == executable and re.match(r"^[+\-*]?\d", line):
            found.setdefault(current_function, None)
    return list(found)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=int, default=120, help="the idle window")
    args = p.parse_args()
    loader = importlib.machinery.SourceFileLoader("benchrun", os.path.join(ROOT, "bench", "run"))
    run = types.ModuleType("benchrun")
    run.__file__ = loader.path
    loader.exec_module(run)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    real = os.path.join(WORK, "splashd.nodebug")
    subprocess.run(["objcopy", "--strip-debug", SPLASHD, real], check=True)
    kept = SPLASHD + ".kept"
    os.rename(SPLASHD, kept)
    dumps = os.path.join(WORK, "callgrind")
    try:
        with open(SPLASHD, "w") as wrapper:
            wrapper.write(f"#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --dump-line=no "
                          f"--callgrind-out-file={dumps}.%p {real} \"$@\"\n")
        os.chmod(SPLASHD, 0o755)
        ctx = run.Context(types.SimpleNamespace(quick=True, reps=1))
        try:
            ctx.devstack = Devstack(os.path.join("/tmp", "splashd-bench-devstack"), photos=2000).up()
            ctx.cleanups.append(ctx.devstack.down)
            daemon = ctx.big_daemon()
            time.sleep(60)  # past the start's delayed work, slower under valgrind
            subprocess.run(["callgrind_control", "-z", str(daemon.pid)], check=True, capture_output=True)
            time.sleep(args.seconds)
            subprocess.run(["callgrind_control", "-d", str(daemon.pid)], check=True, capture_output=True)
            dump = max((os.path.join(WORK, f) for f in os.listdir(WORK) if f.startswith(f"callgrind.{daemon.pid}.")),
                       key=os.path.getmtime)
            idle = functions_with_cost(dump, real)
        finally:
            ctx.close()
    finally:
        os.replace(kept, SPLASHD)
    with open(ORDER, "w") as f:
        f.writelines(f"{name}\n" for name in idle)
    print(f"{len(idle)} functions in {ORDER}")


if __name__ == "__main__":
    main()
