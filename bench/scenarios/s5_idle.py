"""5. Idle: RSS, CPU time and wake-ups of a signed-in, online daemon with 100,000 photos, beside an idle
redis-server (hz 10) over the same window."""
import collections
import os
import re
import socket
import subprocess
import time

from benchlib import log, proc_stat, sh, summary, threads

ID = 5
TITLE = "Idle: RSS, CPU and wake-ups over the window"
TARGET = "≤ 25 MB RSS, ≤ 50 ms CPU over 5 min, no wake-ups but the watchdog's and the live channel's heartbeat"


def drain_notify(d):
    return d.notify_counts["WATCHDOG=1"]


def run(ctx):
    d = ctx.big_daemon()
    window = 20 if ctx.quick else 300
    parts = 4 if ctx.quick else 5
    redis_dir = os.path.join(ctx.work, "redis-idle")
    os.makedirs(redis_dir, exist_ok=True)
    redis = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", redis_dir + "/r.sock", "--save", "", "--appendonly", "no",
                              "--dir", redis_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(5)  # settle: nothing has talked to the daemon since the scenario before
        w0, st0 = drain_notify(d), d.notify_counts["STATUS"]
        h0 = ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0)
        s0, r0, th0 = proc_stat(d.pid), proc_stat(redis.pid), threads(d.pid)
        cpu, wake, rwake, rcpu = [], [], [], []
        prev, rprev = s0, r0
        watchdog = 0
        for _ in range(parts):
            time.sleep(window / parts)
            cur, rcur = proc_stat(d.pid), proc_stat(redis.pid)
            cpu.append((cur[0] - prev[0]) * 1000)
            wake.append(cur[3] - prev[3])
            rcpu.append((rcur[0] - rprev[0]) * 1000)
            rwake.append(rcur[3] - rprev[3])
            prev, rprev = cur, rcur
        watchdog = drain_notify(d) - w0
        heartbeats = ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0) - h0
        status_lines = d.notify_counts["STATUS"] - st0
        s1, r1, th1 = proc_stat(d.pid), proc_stat(redis.pid), threads(d.pid)
        per_thread = collections.Counter()
        for tid, (name, sw) in th1.items():
            per_thread[f"{name}"] += sw - th0.get(tid, (name, 0))[1]
        total_cpu_ms = (s1[0] - s0[0]) * 1000
        total_wake = s1[3] - s0[3]
        rss_mb = s1[1] / 2**20
        # VmRSS counts the store's pages mapped through SQLite's mmap (file-backed, shared with the page
        # cache, given back under memory pressure) beside the daemon's own memory: say which is which.
        parts_kb = {}
        with open(f"/proc/{d.pid}/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
                    parts_kb[line.split(":")[0]] = int(line.split()[1])
        # what the wake-ups are: strace over a shorter window, after the measured one (strace perturbs)
        strace_s = 10 if ctx.quick else 30
        trace = os.path.join(ctx.work, "idle.strace")
        sh(["timeout", "-s", "INT", str(strace_s), "strace", "-f", "-tt", "-qq", "-o", trace, "-p", str(d.pid)], check=False)
        calls = collections.Counter()
        try:
            for line in open(trace):
                m = re.match(r"\d+\s+[\d:.]+\s+(?:<\.\.\. )?(\w+)", line)
                if m and "resumed" not in line.split(m.group(1), 1)[0]:
                    calls[m.group(1)] += 1
        except OSError:
            pass
        res = {
            "splashd": {f"CPU per {window // parts} s": summary(cpu, "ms"), f"context switches per {window // parts} s": summary(wake, "switches"),
                        "RSS at end": summary([rss_mb], "MB"), "peak RSS (VmHWM, whole life)": summary([s1[2] / 2**20], "MB")},
            "anchors": {"redis-server, idle (hz 10)": {
                f"CPU per {window // parts} s": summary(rcpu, "ms"), f"context switches per {window // parts} s": summary(rwake, "switches"),
                "RSS at end": summary([r1[1] / 2**20], "MB"), "peak RSS (VmHWM, whole life)": summary([r1[2] / 2**20], "MB")}},
            "verdict": [
                {"target": "RSS ≤ 25 MB", "value": f"{rss_mb:.1f} MB", "met": rss_mb <= 25},
                {"target": f"CPU ≤ 50 ms over 5 min (scaled: {50 * window / 300:.1f} ms over {window} s)",
                 "value": f"{total_cpu_ms:.0f} ms over {window} s", "met": total_cpu_ms <= 50 * window / 300},
                {"target": "no wake-ups but the watchdog's and the live channel's heartbeat",
                 "value": f"{total_wake} context switches over {window} s; {watchdog} WATCHDOG=1 sent, {heartbeats} heartbeats "
                          f"({(watchdog + heartbeats) and total_wake / (watchdog + heartbeats):.1f} switches per ping)",
                 "met": total_wake <= max(watchdog + heartbeats, 1) * 4}],
            "commands": [f"read /proc/PID/stat (utime+stime), /proc/PID/status (VmRSS, VmHWM) and every "
                         f"/proc/PID/task/*/status (voluntary+nonvoluntary_ctxt_switches) at the start and end of a {window} s window "
                         f"in {parts} parts; WATCHDOG_USEC=30000000 (as the units' WatchdogSec=30s), WATCHDOG=1 counted on NOTIFY_SOCKET",
                         f"strace -f -tt -p PID for {strace_s} s after the window (what the wake-ups are)",
                         "redis-server --port 0 --unixsocket S --save '' --appendonly no  (same window)"],
            "notes": [("--quick: a 20 s window instead of 5 minutes; CPU target scaled by 20/300." if ctx.quick else
                       "5-minute window, as the issue asks."),
                      "Context switches per thread over the window: " + ", ".join(f"{k} {v}" for k, v in per_thread.most_common() if v),
                      f"STATUS= datagrams sent in the window: {status_lines}.",
                      f"Live-channel heartbeats in the window (devstack's count; one every 25 s): {heartbeats}.",
                      "RSS by kind at the end: " + ", ".join(f"{k} {v / 1024:.1f} MB" for k, v in parts_kb.items()) +
                      " (RssFile is mostly the store's pages mapped by SQLite's mmap, PRAGMA mmap_size = 256 MiB: page cache "
                      "the kernel can reclaim, not memory the daemon holds on its own).",
                      "Syscalls in the strace window: " + (", ".join(f"{k} {v}" for k, v in calls.most_common(12)) or "none"),
                      "A wake-up is counted as a context switch of any daemon thread (each blocking wait that returns is one); "
                      "the watchdog's own cost is a few switches per ping (timer, task, sendmsg)."]}
        log(f"s5: rss {rss_mb:.1f} MB, cpu {total_cpu_ms:.0f} ms, switches {total_wake}, watchdog {watchdog}")
        return res
    finally:
        redis.terminate()
        redis.wait()
