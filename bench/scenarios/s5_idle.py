"""5. Idle: RSS, CPU time and wake-ups of a signed-in, online daemon with 100,000 photos, beside an idle
redis-server (hz 10) over the same window."""
import collections
import os
import re
import socket
import subprocess
import time

from benchlib import ROOT, SPLASHD, TaskClock, log, process_age, proc_stat, sh, summary, threads, wait_quiet

ID = 5
TITLE = "Idle: RSS, CPU and wake-ups over the window"
TARGET = "≤ 25 MB RSS, ≤ 50 ms CPU over 5 min, no wake-ups but the watchdog's and the live channel's heartbeat"


def idle_path_layout():
    """How the release link laid out the functions scripts/idle-path.symbols lists: how many the binary has,
    and the longest run of them that lies together (no more than a page between one and the next)."""
    listed = {line.strip() for line in open(os.path.join(ROOT, "scripts", "idle-path.symbols")) if line.strip()}
    out = subprocess.run(["nm", "-S", "--defined-only", SPLASHD], capture_output=True, text=True).stdout
    spans = sorted((int(p[0], 16), int(p[1], 16)) for p in (line.split() for line in out.splitlines()) if len(p) == 4 and p[3] in listed)
    best = run = (0, 0, 0)  # (functions, start, end)
    for start, size in spans:
        run = (run[0] + 1, run[1], start + size) if run[0] and start - run[2] <= 4096 else (1, start, start + size)
        best = max(best, run)
    return len(listed), len(spans), best[0], (best[2] - best[1]) / 1024


def switches_between(before, after):
    """Context switches of the threads alive at `after` since `before` (two `threads()` readings), per thread:
    a thread that ended took its count out of /proc with it, and the sum over the threads alive then would
    drop (seen: -45,413 when a busy pool thread was let go)."""
    return sum(sw - before.get(tid, (name, 0))[1] for tid, (name, sw) in after.items())


def window_figures(cpu, wake, last, seconds):
    """A process's row (the daemon's, an anchor's): CPU and context switches per part of the window, RSS
    and peak RSS at its end (`last`, a `proc_stat()` reading)."""
    return {f"CPU per {seconds} s": summary(cpu, "ms"), f"context switches per {seconds} s": summary(wake, "switches"),
            "RSS at end": summary([last[1] / 2**20], "MB"), "peak RSS (VmHWM, whole life)": summary([last[2] / 2**20], "MB")}


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
    # Swift's runtime alone: a program that ran one task and waits (bench/tools/swiftidle.swift), what any
    # Swift process on Linux costs idle before it does anything of its own.
    swift_idle = subprocess.Popen([os.path.join(ctx.work, "swiftidle")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        swift_idle.stdout.readline()  # "ready": its task ran
        # The window measures a daemon at rest: it opens once the daemon has been up 30 s (past its start's
        # delayed work, such as the duplicate scanner's look for unhashed files 10 s after the start) and its
        # CPU time moved at most 10 ms over 2 s (nothing has talked to it since the scenario before).
        time.sleep(max(0.0, 30 - process_age(d.pid)))
        quiet_s = wait_quiet(d.pid, window=2.0)
        age = process_age(d.pid)
        w0, st0 = drain_notify(d), d.notify_counts["STATUS"]
        h0 = ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0)
        clocks = [TaskClock(pid, window, parts) for pid in (d.pid, redis.pid, swift_idle.pid)]
        s0, r0, th0 = proc_stat(d.pid), proc_stat(redis.pid), threads(d.pid)
        i0, ith0 = proc_stat(swift_idle.pid), threads(swift_idle.pid)
        wake, rwake, iwake = [], [], []
        prev, rprev, tprev, iprev, itprev = s0, r0, th0, i0, ith0
        watchdog = 0
        for _ in range(parts):
            time.sleep(window / parts)
            cur, rcur, tcur = proc_stat(d.pid), proc_stat(redis.pid), threads(d.pid)
            wake.append(switches_between(tprev, tcur))
            rwake.append(rcur[3] - rprev[3])
            icur, itcur = proc_stat(swift_idle.pid), threads(swift_idle.pid)
            iwake.append(switches_between(itprev, itcur))
            prev, rprev, tprev, iprev, itprev = cur, rcur, tcur, icur, itcur
        watchdog = drain_notify(d) - w0
        heartbeats = ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0) - h0
        status_lines = d.notify_counts["STATUS"] - st0
        s1, r1, th1 = proc_stat(d.pid), proc_stat(redis.pid), threads(d.pid)
        i1 = proc_stat(swift_idle.pid)
        cpu, rcpu, icpu = (clock.parts_ms() for clock in clocks)
        runtime_cpu_ms = sum(icpu)
        per_thread = collections.Counter()
        for tid, (name, sw) in th1.items():
            per_thread[f"{name}"] += sw - th0.get(tid, (name, 0))[1]
        total_cpu_ms = sum(cpu)
        ticks_cpu_ms = (s1[0] - s0[0]) * 1000
        total_wake = sum(per_thread.values())  # threads alive at the end; one that ended is not counted
        rss_mb = s1[1] / 2**20
        # VmRSS counts file-backed pages (the executable, libraries, anything mapped) beside the daemon's
        # own memory: say which is which.
        parts_kb = {}
        with open(f"/proc/{d.pid}/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
                    parts_kb[line.split(":")[0]] = int(line.split()[1])
        # which files the file-backed part is (the largest five by resident size)
        mapped = collections.Counter()
        try:
            current = None
            for line in open(f"/proc/{d.pid}/smaps"):
                head = line.split()
                if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):  # a mapping's first line; a file's names its path
                    current = os.path.basename(head[5]) if len(head) >= 6 and head[5].startswith("/") else None
                elif line.startswith("Rss:") and current:
                    mapped[current] += int(head[1])
        except OSError:
            pass
        # what the wake-ups are: strace over a shorter window, after the measured one (strace perturbs)
        strace_s = 20 if ctx.quick else 60
        trace = os.path.join(ctx.work, "idle.strace")
        w_s, h_s = drain_notify(d), ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0)
        sh(["timeout", "-s", "INT", str(strace_s), "strace", "-f", "-tt", "-qq", "-o", trace, "-p", str(d.pid)], check=False)
        pings_s = (drain_notify(d) - w_s) + (ctx.devstack.control("GET", "/_devstack/realtime").get("heartbeats", 0) - h_s)
        calls = collections.Counter()
        events = []  # (seconds, thread, syscall)
        try:
            for line in open(trace):
                m = re.match(r"(\d+)\s+(\d+):(\d+):([\d.]+)\s+(<\.\.\. )?(\w+)", line)
                if m and not m.group(5):  # "<... x resumed>" ends a call already counted
                    m = re.match(r"(\d+)\s+(\d+):(\d+):([\d.]+)\s+(\w+)", line)
                    calls[m.group(5)] += 1
                    name = m.group(5)
                    if name in ("read", "write") and '"\\1\\0\\0\\0\\0\\0\\0\\0", 8' in line:
                        name = "eventfd " + name  # an eventfd's doorbell (libdispatch's, NIO's), not I/O
                    events.append((int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4)), m.group(1), name))
        except OSError:
            pass
        # A wake-up is a burst of syscalls: one that starts more than 200 ms after the one before. Each
        # ping (a WATCHDOG=1, a heartbeat and its reply) is one burst; any other burst is a wake of its own.
        # libdispatch on Linux runs its own worker-pool monitor on a one-second timer for as long as the
        # process lives (swift-corelibs-libdispatch, src/event/workqueue.c: a timer source on the manager
        # queue every NSEC_PER_SEC); its tick is one thread re-arming its timerfd and nothing else. Such
        # bursts are counted apart: they are Swift's runtime on Linux, not the daemon's work.
        bursts, current = [], []
        for e in events:
            if current and e[0] - current[-1][0] > 0.2:
                bursts.append(current)
                current = []
            current.append(e)
        if current:
            bursts.append(current)
        # Likewise libdispatch managing its workers at a tick (starting one, letting one go after five idle
        # seconds): thread calls and doorbells only, no I/O of the daemon's. The first burst is strace
        # attaching.
        monitor = {"timerfd_settime", "epoll_ctl", "epoll_wait"}
        pool = monitor | {"exit", "madvise", "munmap", "futex", "rt_sigprocmask", "clone3", "rseq", "set_robust_list", "prctl",
                          "setpriority", "gettid", "eventfd read", "eventfd write"}
        if bursts and any(c == "restart_syscall" for _, _, c in bursts[0]):
            bursts = bursts[1:]
        names = [{c for _, _, c in b} for b in bursts]
        ticks = [b for b, n in zip(bursts, names) if len({t for _, t, _ in b}) == 1 and n <= monitor]
        exits = [b for b, n in zip(bursts, names) if n <= pool and not (len({t for _, t, _ in b}) == 1 and n <= monitor)]
        wakes = len(bursts) - len(ticks) - len(exits)
        res = {
            "splashd": window_figures(cpu, wake, s1, window // parts),
            "anchors": {"redis-server, idle (hz 10)": window_figures(rcpu, rwake, r1, window // parts),
                        "Swift's runtime alone (a program that ran one task and waits)": window_figures(icpu, iwake, i1, window // parts)},
            "verdict": [
                {"target": "RSS ≤ 25 MB", "value": f"{rss_mb:.1f} MB", "met": rss_mb <= 25},
                {"target": f"CPU ≤ 50 ms over 5 min (scaled: {50 * window / 300:.1f} ms over {window} s)",
                 "value": f"{total_cpu_ms:.1f} ms over {window} s", "met": total_cpu_ms <= 50 * window / 300},
                {"target": "no wake-ups but the watchdog's and the live channel's heartbeat",
                 "value": f"{wakes} wake-ups in a {strace_s} s strace window against {pings_s} pings in it (watchdog and "
                          f"heartbeats), besides {len(ticks)} ticks of libdispatch's pool monitor and {len(exits)} of it starting "
                          f"or letting go a worker; over the {window} s window "
                          f"{watchdog} WATCHDOG=1 sent, {heartbeats} heartbeats, {total_wake} context switches "
                          f"({(watchdog + heartbeats) and total_wake / (watchdog + heartbeats):.1f} per ping)",
                 "met": wakes <= pings_s}],
            "commands": [f"perf stat -x , -I {window * 1000 // parts} -e task-clock -p PID -- sleep {window}.5  (each process: "
                         "its CPU time in each part of the window, every thread counted, those that start or end in it too)",
                         f"read /proc/PID/status (VmRSS, VmHWM) and every "
                         f"/proc/PID/task/*/status (voluntary+nonvoluntary_ctxt_switches) at the start and end of a {window} s window "
                         f"in {parts} parts, per thread (a thread that ends within it is not counted); WATCHDOG_USEC=30000000 (as the units' WatchdogSec=30s), WATCHDOG=1 counted on NOTIFY_SOCKET",
                         f"strace -f -tt -p PID for {strace_s} s after the window: what the wake-ups are, and how many (a burst "
                         "of syscalls more than 200 ms after the one before is one wake-up), against the WATCHDOG=1 and heartbeats "
                         "counted over the same seconds",
                         "redis-server --port 0 --unixsocket S --save '' --appendonly no  (same window)"],
            "notes": [("--quick: a 20 s window instead of 5 minutes; CPU target scaled by 20/300." if ctx.quick else
                       "5-minute window, as the issue asks."),
                      f"The window opened with the daemon {age:.0f} s old and at rest: up at least 30 s (its start's delayed "
                      f"work done) and its CPU time moved at most 10 ms over 2 s (waited {quiet_s:.0f} s for that).",
                      "Context switches per thread over the window: " + ", ".join(f"{k} {v}" for k, v in per_thread.most_common() if v),
                      f"STATUS= datagrams sent in the window: {status_lines}.",
                      f"Live-channel heartbeats in the window (devstack's count; one every 25 s): {heartbeats}.",
                      "RSS by kind at the end: " + ", ".join(f"{k} {v / 1024:.1f} MB" for k, v in parts_kb.items()) +
                      " (RssFile: the executable's and libraries' pages in use, and any file the daemon maps; the store is "
                      "not mapped since issue 19: PRAGMA mmap_size = 0).",
                      "Largest file mappings by resident size: " + ", ".join(f"{k} {v / 1024:.1f} MB" for k, v in mapped.most_common(5)) + ".",
                      "Syscalls in the strace window: " + (", ".join(f"{k} {v}" for k, v in calls.most_common(12)) or "none"),
                      "What stays resident idle, and why it is not let go: the daemon lets go of its clean read-only file pages "
                      "(code, constant data) once a burst of work is over and of the store's caches, and gives freed heap back "
                      "(CleanMappedPages, Store.releaseMemory, FreedMemory, on the watchdog's ping), from glibc arenas capped at "
                      "two (FreedMemory.limitArenas: by hand on this scenario's daemon at ab1cd84, 90 s after its start, "
                      "RssAnon 9.0 MB with glibc's default of eight a core, 6.9 MB with MALLOC_ARENA_MAX=2); the code the idle work "
                      "itself runs (pings, heartbeats) is mapped again, 64 KiB around each page it touches, and the "
                      "executable's writable segments keep their pages (its relocated tables, .data, .bss): letting go of a "
                      "writable private mapping would lose any page written meanwhile.",
                      f"Of the CPU time, Swift's runtime on Linux takes its share whatever the daemon does: the anchor that "
                      f"ran one task and waits (bench/tools/swiftidle.swift, built with swiftc -O -static-stdlib) used "
                      f"{runtime_cpu_ms:.1f} ms over the same {window} s (libdispatch's pool monitor, a timer on its manager "
                      f"thread every second once any task has run; no setting turns it off), the daemon {total_cpu_ms:.1f} ms "
                      f"in all. CPU time is perf's task-clock (nanoseconds, every thread); /proc/PID/stat's utime+stime, "
                      f"in 10 ms ticks each rounded down, moved {ticks_cpu_ms:.0f} ms over the same window.",
                      "What the idle events map again (measured at 32e8be2 on this scenario's daemon, by hand: perf record -e "
                      "page-faults -d after calling CleanMappedPages.release() in it through gdb): the daemon's file pages fell "
                      "from 25.7 to 14.5 MB and were back at 25.7 MB 22 s later: in 40 s the pings and heartbeats faulted "
                      "in 177 places of the executable's 27 MB of code, and the kernel maps 64 KiB around each (fault-around, "
                      "a system-wide setting that no madvise changes): 10 MB of code stayed resident for a few hundred "
                      "kilobytes run. Hence the release build's layout (scripts/release-flags): every function in a section "
                      "of its own and the 1,791 functions an idle daemon runs (callgrind over 120 idle seconds of this "
                      "scenario's daemon: bench/tools/order_idle_path.py) laid out together (gold's "
                      "--section-ordering-file then, lld's --symbol-ordering-file now). Side by side in this scenario at 32e8be2: file pages 20.0 MB without, "
                      "16.7 MB with (the executable 15.5 → 12.2 MB); a first list of 468 functions, found by recording "
                      "faults (one per 64 KiB window), had gained nothing.",
                      "Why the release link is lld's, with scripts/writable-rodata.ld: Swift's objects (the toolchain's own "
                      "static libraries among them) emit small writable input sections named .rodata (flags \"aw\"), and a "
                      "linker gives an output section the union of its inputs' flags, so gold put all 38 MB of constant "
                      "data (Unicode and ICU tables among it) in the writable segment, whose 4.5 MB of clean pages "
                      "CleanMappedPages must not unmap (a page written meanwhile would be lost). lld's INPUT_SECTION_FLAGS "
                      "moves those few (240 KB) to a writable section of their own, and .rodata is read-only, let go of "
                      "with the code: by hand on this scenario's daemon 90 s after its start, file pages 13.9 MB linked by gold "
                      "(at bc69122), 11.0 MB by lld (at ab1cd84). (madvise(MADV_PAGEOUT) would reclaim them too, but the kernel pages out a file's pages "
                      "only for a process that could write the file: mm/madvise.c, can_do_file_pageout.)",
                      "A wake-up is counted as a context switch of any daemon thread (each blocking wait that returns is one); "
                      "the watchdog's own cost is a few switches per ping (timer, task, sendmsg)."]}
        listed, present, together, together_kb = idle_path_layout()
        res["notes"].append(f"The idle path's layout in the measured binary: of the {listed} functions scripts/idle-path.symbols "
                            f"lists, {present} symbols are in it, {together} of them together in {together_kb:.0f} KiB (the rest are "
                            f"in archives built without function sections, libdispatch's among them).")
        log(f"s5: rss {rss_mb:.1f} MB, cpu {total_cpu_ms:.0f} ms, switches {total_wake}, watchdog {watchdog}")
        return res
    finally:
        redis.terminate()
        redis.wait()
        swift_idle.kill()
        swift_idle.wait()
