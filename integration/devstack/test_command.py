"""devstack/devstack itself: stdout is only KEY=VALUE lines, up is idempotent, env reprints, down
removes the instance and its cluster; instances run side by side."""
import os
import re
import subprocess
import uuid

import requests

from conftest import DEVSTACK

KEYS = {"SPLASHD_BACKEND_URL", "SPLASHD_ANON_KEY", "SPLASHD_UNSPLASH_API_URL", "SPLASHD_UNSPLASH_ACCESS_KEY",
        "SPLASHD_NASA_API_URL", "DEVSTACK_URL", "DEVSTACK_STATE_DIR", "DEVSTACK_SERVICE_ROLE_KEY",
        "DEVSTACK_JWT_SECRET", "DEVSTACK_DATABASE_URL"}


def run(cmd, state_dir, **env):
    e = dict(os.environ, DEVSTACK_STATE_DIR=state_dir, **env)
    for k in ("DEVSTACK_URL", "DEVSTACK_PORT", "DEVSTACK_HOST"):
        if k not in env:
            e.pop(k, None)
    return subprocess.run([DEVSTACK, cmd], env=e, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_up_env_down_side_by_side(env):
    state_dir = f"/tmp/splashd-devstack-cmdtest-{uuid.uuid4().hex[:8]}"
    try:
        up = run("up", state_dir, DEVSTACK_PHOTOS="50")
        assert up.returncode == 0, up.stderr
        lines = up.stdout.splitlines()
        assert lines and all(re.match(r"^[A-Z_]+=\S+$", l) for l in lines), up.stdout
        vals = dict(l.split("=", 1) for l in lines)
        assert KEYS <= set(vals)
        assert vals["DEVSTACK_STATE_DIR"] == state_dir
        assert vals["SPLASHD_BACKEND_URL"].startswith("http://127.0.0.1:")
        assert vals["SPLASHD_UNSPLASH_API_URL"] == vals["DEVSTACK_URL"] + "/unsplash"
        assert vals["SPLASHD_NASA_API_URL"] == vals["DEVSTACK_URL"] + "/nasa"
        # a second instance beside the session's own: different port, secret and database
        assert vals["DEVSTACK_URL"] != env["DEVSTACK_URL"]
        assert vals["DEVSTACK_JWT_SECRET"] != env["DEVSTACK_JWT_SECRET"]
        r = requests.get(vals["SPLASHD_UNSPLASH_API_URL"] + "/search/photos", params={"query": "sky"},
                         headers={"Authorization": f"Client-ID {vals['SPLASHD_UNSPLASH_ACCESS_KEY']}"})
        assert r.status_code == 200 and r.json()["total"] < 50
        again = run("up", state_dir)
        assert again.returncode == 0 and again.stdout == up.stdout  # idempotent: same instance
        assert run("env", state_dir).stdout == up.stdout
        pgdata = open(os.path.join(state_dir, "pgdata.path")).read().strip()
        assert os.path.isdir(pgdata)
    finally:
        down = run("down", state_dir)
    assert down.returncode == 0 and down.stdout == ""
    assert not os.path.exists(state_dir) and not os.path.exists(pgdata)
    assert run("env", state_dir).returncode != 0
    try:
        requests.get(vals["DEVSTACK_URL"] + "/_devstack/health", timeout=2)
        assert False, "server still answering after down"
    except requests.ConnectionError:
        pass


def test_devstack_host_binds_only_that_address():
    import socket
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.2", 0))
    except OSError:
        import pytest
        pytest.skip("127.0.0.2 is not usable here")
    finally:
        probe.close()
    state_dir = f"/tmp/splashd-devstack-cmdtest-{uuid.uuid4().hex[:8]}"
    try:
        up = run("up", state_dir, DEVSTACK_HOST="127.0.0.2", DEVSTACK_PHOTOS="20")
        assert up.returncode == 0, up.stderr
        vals = dict(l.split("=", 1) for l in up.stdout.splitlines())
        assert vals["SPLASHD_BACKEND_URL"].startswith("http://127.0.0.2:")
        port = vals["DEVSTACK_URL"].rsplit(":", 1)[1]
        assert requests.get(vals["DEVSTACK_URL"] + "/_devstack/health", timeout=5).status_code == 200
        try:
            requests.get(f"http://127.0.0.1:{port}/_devstack/health", timeout=2)
            assert False, "also answering on 127.0.0.1"
        except requests.ConnectionError:
            pass
    finally:
        run("down", state_dir)


def test_no_port_is_picked_before_it_is_bound(env, sql):
    """A port chosen first and bound later can be taken in between (by an outgoing connection's
    ephemeral port or another instance starting beside this one): one make test in many failed "address
    already in use". Postgres listens on its socket directory only; the server binds port 0 itself and
    the env file names the port it got."""
    assert sql("SHOW listen_addresses")[0][0] == ""
    assert "@/postgres?host=" in env["DEVSTACK_DATABASE_URL"]
    import json
    config = json.load(open(os.path.join(env["DEVSTACK_STATE_DIR"], "config.json")))
    assert config["port"] == 0
    port = int(env["DEVSTACK_URL"].rsplit(":", 1)[1])
    assert port > 0 and requests.get(env["DEVSTACK_URL"] + "/_devstack/health", timeout=2).ok


def test_restart_kills_the_server_and_brings_it_back_on_its_port_with_the_data_kept():
    """`devstack restart` is a backend crash and return, for the clients' tests: the server dies by
    SIGKILL and comes back on the same port, with the same keys; the accounts are kept."""
    state_dir = f"/tmp/splashd-devstack-cmdtest-{uuid.uuid4().hex[:8]}"
    try:
        up = run("up", state_dir, DEVSTACK_PHOTOS="20")
        assert up.returncode == 0, up.stderr
        before = dict(l.split("=", 1) for l in up.stdout.splitlines())
        anon = {"apikey": before["SPLASHD_ANON_KEY"]}
        account = {"email": f"u{uuid.uuid4().hex[:12]}@example.com", "password": "correct horse 1"}
        assert requests.post(before["DEVSTACK_URL"] + "/auth/v1/signup", json=account, headers=anon).ok

        restart = run("restart", state_dir)
        assert restart.returncode == 0, restart.stderr
        after = dict(l.split("=", 1) for l in restart.stdout.splitlines())
        assert after["DEVSTACK_URL"] == before["DEVSTACK_URL"]
        assert after["DEVSTACK_PID"] != before["DEVSTACK_PID"]
        assert {k: v for k, v in after.items() if k != "DEVSTACK_PID"} == \
            {k: v for k, v in before.items() if k != "DEVSTACK_PID"}
        assert not os.path.exists(f"/proc/{before['DEVSTACK_PID']}")
        signed_in = requests.post(before["DEVSTACK_URL"] + "/auth/v1/token?grant_type=password", json=account,
                                  headers=anon)
        assert signed_in.status_code == 200, signed_in.text
    finally:
        run("down", state_dir)
    assert run("restart", state_dir).returncode != 0  # nothing to restart
