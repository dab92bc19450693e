"""9. Connectivity: link down → `offline`, link up → the first queued like on the server. devstack runs in
a network namespace of its own, splashd in another, a veth pair between (as Tests/SyncTests does)."""
import os
import random
import subprocess
import time
import uuid

from benchlib import Daemon, Devstack, add_library_files, log, sample_jpeg, seed_photos, sh, signup, summary

ID = 9
TITLE = "Connectivity: link down → offline, link up → queued like on the server"
TARGET = "≤ 1 s and ≤ 2 s"


def run(ctx):
    if os.geteuid() != 0:
        return {"status": "not measured", "reason": "network namespaces need root"}
    tag = uuid.uuid4().hex[:6]
    dns, sns, dend, send = f"sdb-d-{tag}", f"sdb-s-{tag}", f"vbd{tag}", f"vbs{tag}"
    octet = random.randint(1, 250)
    dip, sip = f"10.233.{octet}.1", f"10.233.{octet}.2"
    ds, d = None, None
    sh(["ip", "netns", "add", dns])
    sh(["ip", "netns", "add", sns])
    try:
        sh(["ip", "link", "add", dend, "netns", dns, "type", "veth", "peer", "name", send, "netns", sns])
        for ns, end, addr in ((dns, dend, dip), (sns, send, sip)):
            sh(["ip", "netns", "exec", ns, "ip", "addr", "add", addr + "/30", "dev", end])
            sh(["ip", "netns", "exec", ns, "ip", "link", "set", end, "up"])
            sh(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"])
        ds = Devstack(f"/tmp/splashd-bench-devstack-ns-{tag}", photos=50, host=sip, netns=sns).up()
        directory = os.path.join(ctx.work, "netns")
        d = Daemon(directory, env=dict(ds.daemon_env(), SPLASHD_PLAIN_HTTP_HOSTS=sip), launcher=["ip", "netns", "exec", dns])
        d.start()
        rpc = d.rpc()
        signup(rpc, "ns" + tag)
        d.wait_state(rpc, "online", timeout=20)
        n = ctx.reps
        ids = seed_photos(d.db_path, n, "ns" + tag, colors=False)
        add_library_files(d, ids, sample_jpeg(ctx))
        down, up, back = [], [], []
        for rep in range(n):
            sub = d.rpc()
            sub.call("events.subscribe", {"types": ["connectivity.changed", "outbox.changed"]})
            t0 = time.perf_counter()
            sh(["ip", "netns", "exec", dns, "ip", "link", "set", dend, "down"])
            t_off = _wait(sub, lambda p: p["type"] == "connectivity.changed" and p["data"]["state"] == "offline", 15)
            down.append(t_off - t0)
            rpc.call("photos.like", {"id": ids[rep]})
            time.sleep(1.0)
            while sub.next_event(0.01):
                pass
            t1 = time.perf_counter()
            sh(["ip", "netns", "exec", dns, "ip", "link", "set", dend, "up"])
            t_on = None

            def done(p):
                nonlocal t_on
                if p["type"] == "connectivity.changed" and p["data"]["state"] == "online" and t_on is None:
                    t_on = time.perf_counter()
                return p["type"] == "outbox.changed" and p["data"]["pending"] == 0 and p["data"]["in_flight"] == 0
            t_srv = _wait(sub, done, 30)
            up.append(t_srv - t1)
            if t_on:
                back.append(t_on - t1)
            sub.close()
            log(f"s9 rep {rep + 1}: down→offline {down[-1] * 1000:.0f} ms, up→like on server {up[-1] * 1000:.0f} ms")
            time.sleep(1.0)
        rpc.close()
        dn, u = summary([x * 1000 for x in down], "ms"), summary([x * 1000 for x in up], "ms")
        res = {"splashd": {"link down → offline": dn, "link up → queued like on the server": u}}
        if back:
            res["splashd"]["link up → online"] = summary([x * 1000 for x in back], "ms")
        res["verdict"] = [{"target": "down → offline ≤ 1 s", "value": f"{dn['median']:.0f} ms", "met": dn["median"] <= 1000},
                          {"target": "up → like on the server ≤ 2 s", "value": f"{u['median']:.0f} ms", "met": u["median"] <= 2000}]
        res["commands"] = [f"ip netns add {{daemon,server}}; ip link add … type veth …; devstack in the server namespace "
                           f"(DEVSTACK_HOST=10.233.x.2); ip netns exec DAEMON_NS splashd … (SPLASHD_PLAIN_HTTP_HOSTS=10.233.x.2)",
                           "ip netns exec DAEMON_NS ip link set VETH down → time to the connectivity.changed event 'offline'",
                           "photos.like while offline; 1 s later: ip link set VETH up → time to the outbox.changed event with pending 0 "
                           "and in_flight 0 (the server has answered the push)"]
        res["notes"] = ["Events are read on a subscribed control connection; the socket is a path, so it is reachable across the "
                        "network namespaces. The namespaces, the veth pair and devstack's instance are removed at the end."]
        return res
    finally:
        if d:
            d.stop()
        if ds:
            ds.down()
        subprocess.run(["ip", "netns", "del", dns])
        subprocess.run(["ip", "netns", "del", sns])


def _wait(sub, pred, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        ev = sub.next_event(max(0.01, deadline - time.time()))
        if ev and pred(ev[1]):
            return ev[0]
    raise RuntimeError("timed out waiting for an event")
