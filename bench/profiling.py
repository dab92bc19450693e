"""Where the time goes, for scenarios that miss their target: perf sampling (cpu-clock; this machine's
virtual CPUs have no hardware counters), or callgrind when perf is unavailable."""
import os
import subprocess
import threading

from benchlib import log, sh


def perf_while(ctx, pid, workload, label, seconds=8):
    data = os.path.join(ctx.work, f"perf-{pid}-{abs(hash(label)) % 10000}.data")
    rec = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "999", "-g", "-p", str(pid), "-o", data, "--", "sleep",
                            str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = threading.Thread(target=lambda: _safe(workload))
    t.start()
    rec.wait()
    t.join()
    out = sh(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,symbol", "-g", "none",
              "--percent-limit", "1.5"], check=False).stdout
    lines = [l for l in out.splitlines() if l.strip() and not l.startswith("#")]
    samples = next((l for l in out.splitlines() if l.startswith("# Samples:")), "# Samples: ?")
    try:
        n = int(samples.split(":")[1].split()[0].rstrip("K")) * (1000 if "K" in samples.split(":")[1].split()[0] else 1)
        busy = f"about {n} samples at 999 Hz over {seconds} s: the daemon was on a CPU {n / (999 * seconds) * 100:.0f} % of the window"
    except (ValueError, IndexError):
        busy = samples
    head = (f"perf record -e cpu-clock -F 999 -g -p <splashd> while: {label}\n{busy}\n"
            "perf report --no-children --sort dso,symbol (top entries):\n")
    return head + "\n".join(_shorten(l) for l in lines[:30])


def _shorten(line, width=160):
    line = " ".join(line.split())
    return line if len(line) <= width else line[:width] + "…"


def _safe(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        log("profile workload:", e)


def callgrind(ctx, argv, label, env=None):
    out = os.path.join(ctx.work, "callgrind.out")
    sh(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv, check=False, env=env)
    ann = sh(["callgrind_annotate", out], check=False).stdout.splitlines()
    return f"valgrind --tool=callgrind {' '.join(argv)}  ({label})\n" + "\n".join(_shorten(l) for l in ann[:40])
