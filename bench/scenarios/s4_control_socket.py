"""4. Control socket: daemon.status round trips against redis-server PING over a Unix socket."""
import json
import os
import subprocess
import time

from benchlib import log, pct, sh, summary

ID = 4
TITLE = "Control socket: daemon.status round trips"
TARGET = "p50 ≤ 100 µs with one client; ≥ 50 % of Redis's PING rate at 32 clients"

STATUS = '{"jsonrpc":"2.0","id":1,"method":"daemon.status"}'


def load(ctx, sock, clients, seconds, request):
    r = sh([ctx.rpcload, sock, str(clients), str(seconds), request])
    return json.loads(r.stdout)


def run(ctx):
    daemon = ctx.big_daemon()
    seconds = 2 if ctx.quick else 5
    redis_dir = os.path.join(ctx.work, "redis")
    os.makedirs(redis_dir, exist_ok=True)
    rsock = os.path.join(redis_dir, "redis.sock")
    redis_cmd = ["redis-server", "--port", "0", "--unixsocket", rsock, "--unixsocketperm", "700", "--save", "",
                 "--appendonly", "no", "--dir", redis_dir]
    redis = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(rsock):
                break
            time.sleep(0.05)
        res = {"splashd": {}, "anchors": {"redis-server PING (same client, rpcload)": {}, "redis-server PING (redis-benchmark)": {}}}
        s, rl, rb = res["splashd"], res["anchors"]["redis-server PING (same client, rpcload)"], res["anchors"]["redis-server PING (redis-benchmark)"]
        samples = {k: [] for k in ["p50_1", "p99_1", "rps_1", "rps_32", "r_p50_1", "r_p99_1", "r_rps_1", "r_rps_32", "b_rps_1", "b_rps_32", "b_p50_1", "b_p99_1"]}
        n_bench = 50000 if ctx.quick else 200000
        for rep in range(ctx.reps):
            log(f"s4 rep {rep + 1}/{ctx.reps}")
            one = load(ctx, daemon.socket_path, 1, seconds, STATUS)
            many = load(ctx, daemon.socket_path, 32, seconds, STATUS)
            r1 = load(ctx, rsock, 1, seconds, "PING")
            r32 = load(ctx, rsock, 32, seconds, "PING")
            samples["p50_1"].append(one["p50_us"]); samples["p99_1"].append(one["p99_us"])
            samples["rps_1"].append(one["rps"]); samples["rps_32"].append(many["rps"])
            samples["r_p50_1"].append(r1["p50_us"]); samples["r_p99_1"].append(r1["p99_us"])
            samples["r_rps_1"].append(r1["rps"]); samples["r_rps_32"].append(r32["rps"])
            for c in (1, 32):
                out = sh(["redis-benchmark", "-s", rsock, "-c", str(c), "-n", str(n_bench // (4 if c == 1 else 1)),
                          "-t", "ping_inline", "--csv"]).stdout.strip().splitlines()
                # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                row = [x.strip('"') for x in out[-1].split(",")]
                samples[f"b_rps_{c}"].append(float(row[1]))
                if c == 1:
                    samples["b_p50_1"].append(float(row[4]) * 1000); samples["b_p99_1"].append(float(row[6]) * 1000)
        s["p50 latency, 1 client"] = summary(samples["p50_1"], "µs")
        s["p99 latency, 1 client"] = summary(samples["p99_1"], "µs")
        s["requests/s, 1 client"] = summary(samples["rps_1"], "req/s")
        s["requests/s, 32 clients"] = summary(samples["rps_32"], "req/s")
        rl["p50 latency, 1 client"] = summary(samples["r_p50_1"], "µs")
        rl["p99 latency, 1 client"] = summary(samples["r_p99_1"], "µs")
        rl["requests/s, 1 client"] = summary(samples["r_rps_1"], "req/s")
        rl["requests/s, 32 clients"] = summary(samples["r_rps_32"], "req/s")
        rb["p50 latency, 1 client"] = summary(samples["b_p50_1"], "µs")
        rb["p99 latency, 1 client"] = summary(samples["b_p99_1"], "µs")
        rb["requests/s, 1 client"] = summary(samples["b_rps_1"], "req/s")
        rb["requests/s, 32 clients"] = summary(samples["b_rps_32"], "req/s")
        p50 = s["p50 latency, 1 client"]["median"]
        share = s["requests/s, 32 clients"]["median"] / rb["requests/s, 32 clients"]["median"]
        share_same = s["requests/s, 32 clients"]["median"] / rl["requests/s, 32 clients"]["median"]
        res["verdict"] = [
            {"target": "p50 ≤ 100 µs (1 client)", "value": f"{p50:.0f} µs", "met": p50 <= 100},
            {"target": "≥ 50 % of redis-benchmark's PING rate at 32 clients", "value": f"{share * 100:.1f} %", "met": share >= 0.5},
            {"target": "(same, against Redis driven by rpcload)", "value": f"{share_same * 100:.1f} %", "met": share_same >= 0.5},
        ]
        res["commands"] = [
            "bench/tools/rpcload SOCKET 1|32 %d '%s'   # C client, one connection per client, one request in flight each" % (seconds, STATUS),
            " ".join(redis_cmd),
            "bench/tools/rpcload REDIS_SOCK 1|32 %d PING" % seconds,
            "redis-benchmark -s REDIS_SOCK -c 1|32 -n N -t ping_inline --csv",
        ]
        res["notes"] = ["The daemon holds 100,000 photos and is signed in and online while it is measured.",
                        "Ratios are splashd ÷ anchor: for latency lower is better, for requests/s higher is better.",
                        "How: daemon.status is answered on the event loop that read it (no hop to the concurrency pool), "
                        "its result's JSON is kept and used again while the status is unchanged (uptime counts in hundredths "
                        "of a second), and the envelope is read without snake-case key conversion. Before (606b62a, perf "
                        "at 32 clients): encoding the status was 48 % of the daemon's CPU and decoding 13 %; 22.6 % of "
                        "redis-benchmark's rate. What is left per request is mostly the kernel's (read, write, waking the "
                        "client: 60 % of the daemon's samples) and Foundation's JSONDecoder reading the envelope (16 %)."]
        ctx.profile_if_missed(res, daemon, lambda: load(ctx, daemon.socket_path, 32, 10, STATUS), "32 clients sending daemon.status")
        return res
    finally:
        redis.terminate()
        redis.wait()
