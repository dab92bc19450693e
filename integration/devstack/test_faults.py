"""/_devstack: fault injection per route pattern, knobs, counters, reset."""
import time

import pytest
import requests


def rules(control, *rs):
    r = control.post("/_devstack/faults", json=list(rs))
    assert r.status_code == 200, r.text
    return r.json()


def test_error_fault_with_retry_after_and_body(control, unsplash, anon):
    rules(control, {"path": "/rest/v1/*", "status": 503, "body": {"message": "down for maintenance"},
                    "retry_after": 7})
    r = anon.get("/rest/v1/recent_signups")
    assert r.status_code == 503 and r.json() == {"message": "down for maintenance"}
    assert r.headers["Retry-After"] == "7"
    assert anon.get("/auth/v1/health").status_code == 200  # other routes unaffected
    rules(control, {"path": "/unsplash/*", "status": 429, "retry_after": 60})
    r = unsplash.get("/photos")
    assert r.status_code == 429 and r.text == "Rate Limit Exceeded" and r.headers["Retry-After"] == "60"


def test_latency_times_and_method(control, anon):
    rules(control, {"path": "/auth/v1/health", "method": "GET", "delay_ms": 1000, "times": 1})
    t = time.monotonic()
    anon.get("/auth/v1/health")
    assert time.monotonic() - t >= 0.98
    t = time.monotonic()
    anon.get("/auth/v1/health")
    assert time.monotonic() - t < 0.9
    assert control.get("/_devstack/faults").json()[0]["hits"] == 1


def test_connection_reset(control, anon):
    rules(control, {"path": "/auth/v1/health", "action": "reset"})
    with pytest.raises(requests.exceptions.ConnectionError):
        anon.get("/auth/v1/health")


def test_lose_answer_applies_the_request_then_resets(control, anon):
    rules(control, {"path": "/auth/v1/signup", "method": "POST", "action": "lose_answer", "times": 1})
    e = f"lost-{time.time_ns()}@example.com"
    with pytest.raises(requests.exceptions.RequestException):
        anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22"})
    # The signup took effect though its answer was lost: the same address is now taken.
    r = anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22"})
    assert r.status_code in (400, 422) and "exist" in r.text, r.text
    assert control.get("/_devstack/faults").json()[0]["hits"] == 1


def test_truncated_body(control, unsplash):
    p = unsplash.get("/photos", params={"per_page": 1}).json()[0]
    rules(control, {"path": "/cdn/unsplash/*", "action": "truncate", "truncate_bytes": 1000})
    with pytest.raises(requests.exceptions.RequestException):
        requests.get(p["urls"]["small"], timeout=10)


def test_stalled_body(control, unsplash):
    p = unsplash.get("/photos", params={"per_page": 1}).json()[0]
    rules(control, {"path": "/cdn/unsplash/*", "action": "stall", "stall_seconds": 5})
    with pytest.raises(requests.exceptions.RequestException):
        r = requests.get(p["urls"]["small"], timeout=0.5)
        r.content


def test_probability(control, anon):
    rules(control, {"path": "/auth/v1/health", "status": 500, "probability": 0.2})
    codes = [anon.get("/auth/v1/health").status_code for _ in range(200)]
    failed = codes.count(500)
    assert 15 <= failed <= 70, failed


def test_bad_rules_rejected(control):
    assert control.post("/_devstack/faults", data="not json").status_code == 400
    assert control.post("/_devstack/faults", json=[{"action": "explode"}]).status_code == 400
    assert control.post("/_devstack/faults", json=[{"pathh": "/x"}]).status_code == 400
    assert control.post("/_devstack/knobs", json={"no_such_knob": 1}).status_code == 400
    assert control.post("/_devstack/knobs", json={"access_token_lifetime": "long"}).status_code == 400


def test_counters_and_reset(control, unsplash, anon):
    for _ in range(3):
        unsplash.get("/photos", params={"per_page": 2})
    anon.get("/rest/v1/recent_signups")
    c = control.get("/_devstack/counters").json()
    assert c["requests"]["GET /unsplash/photos"] == 3
    assert c["requests"]["GET /rest/v1/{name}"] == 1
    assert c["requests_by_path"]["GET /rest/v1/recent_signups"] == 1
    assert c["bytes_served"]["GET /unsplash/photos"] > 0 and c["bytes_served_total"] > 0
    assert c["status"]["200"] >= 4
    assert c["unsplash_rate"]["used"] == 3
    rules(control, {"path": "*", "delay_ms": 1})
    control.post("/_devstack/knobs", json={"access_token_lifetime": 5})
    assert control.post("/_devstack/reset").status_code == 200
    c = control.get("/_devstack/counters").json()
    assert c["requests_total"] == 0 and c["unsplash_rate"]["used"] == 0
    assert control.get("/_devstack/faults").json() == []
    assert control.get("/_devstack/knobs").json()["access_token_lifetime"] == 3600
