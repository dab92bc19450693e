"""Part 4: hostile control clients.
- Fuzzed lines (random bytes, deep nesting, huge numbers, invalid UTF-8, NUL, wrong types, mutated
  requests, oversize lines): every answer is a valid JSON-RPC 2.0 response, an error for every line
  that is not a valid request; the daemon stays up and its RSS bounded.
- 1,000 idle connections: served up to control.max_connections, the rest told `busy`; the daemon
  answers again once they are gone.
- A subscriber that never reads while thousands of events are published: RSS bounded, others still
  served, and the subscriber is told how many events it missed.
"""
import json
import os
import random
import socket
import threading
import time

from lib import Daemon, Failure, Rpc, RssSampler, fresh_dir, log, populate, rss_kb

MAX_LINE = 1048576
METHODS = ["daemon.ping", "daemon.status", "photos.list", "photos.show", "photos.like", "queue.list", "events.subscribe",
           "auth.whoami", "cache.status", "sync.now", "photos.search", "nope.nothing"]


def valid_request(rng, n):
    method = rng.choice(METHODS[:3] + ["photos.list", "queue.list", "cache.status"])
    params = {"limit": rng.randint(1, 50)} if method == "photos.list" else None
    message = {"jsonrpc": "2.0", "id": n, "method": method}
    if params:
        message["params"] = params
    return json.dumps(message).encode()


def fuzz_line(rng, n):
    """(kind, bytes, must_error). must_error: the line is not a valid request, so the one answer is an error."""
    kind = rng.choice(["random", "random", "utf8", "nul", "nest", "nest_params", "number", "number_params", "types",
                       "mutate", "mutate", "unicode"])
    if kind == "random":
        data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300))).replace(b"\n", b" ")
        # a random line that happens to be a JSON number or string would still be "not an object": an error
        return kind, data, True
    if kind == "utf8":
        bad = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82", b"\xc0\xaf"])
        where = rng.choice(["method", "id", "key"])
        if where == "method":
            return kind, b'{"jsonrpc":"2.0","id":%d,"method":"daemon.p' % n + bad + b'ing"}', True
        if where == "id":
            return kind, b'{"jsonrpc":"2.0","id":"' + bad + b'","method":"daemon.ping"}', True
        return kind, b'{"jsonrpc":"2.0","id":%d,"method":"photos.show","params":{"id":"unsplash:' % n + bad + b'"}}', True
    if kind == "nul":
        return kind, rng.choice([b'{"jsonrpc":"2.0","id":%d,"method":"daemon.\x00ping"}' % n, b"\x00" * rng.randint(1, 64),
                                 b'{"jsonrpc":"2.0","id":%d,\x00"method":"daemon.ping"}' % n,
                                 b'{"jsonrpc":"2.0","id":%d,"method":"photos.show","params":{"id":"unsplash:a\\u0000b"}}' % n]), \
            True
    if kind == "nest":
        depth = rng.choice([64, 512, 1000, 10000, 100000, 500000])
        opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        if len(opener) * depth + depth > MAX_LINE - 100:
            depth = (MAX_LINE - 100) // (len(opener) + 1)
        # Nested objects without an "id" are notifications if they parse: no answer, or one error.
        return kind, opener * depth + b"1" + closer * depth, True if opener == b"[" else "silent_or_error"
    if kind == "nest_params":
        depth = rng.choice([64, 600, 5000, 100000])
        return kind, b'{"jsonrpc":"2.0","id":%d,"method":"photos.list","params":{"limit":' % n + b"[" * depth + b"]" * depth + b"}}", True
    if kind == "number":
        number = rng.choice([b"1e999999", b"123456789012345678901234567890123456789", b"1.5", b"9" * 5000,
                             b"NaN", b"Infinity", b"0x10", b"1e+", b"-", b"01"])
        return kind, b'{"jsonrpc":"2.0","id":' + number + b',"method":"daemon.ping"}', True
    if kind == "number_params":
        number = rng.choice([b"1e308", b"1e999", b"99999999999999999999999", b"-99999999999999999999", b"1.0000001", b"9" * 4000, b"-0.5"])
        return kind, b'{"jsonrpc":"2.0","id":%d,"method":"photos.list","params":{"limit":' % n + number + b"}}", True
    if kind == "types":
        return kind, rng.choice([
            b'{"jsonrpc":"2.0","id":%d,"method":123}' % n,
            b'{"jsonrpc":"1.0","id":%d,"method":"daemon.ping"}' % n,
            b'{"jsonrpc":"2.0","id":[1],"method":"daemon.ping"}',
            b'{"jsonrpc":"2.0","id":{"a":1},"method":"daemon.ping"}',
            b'{"jsonrpc":"2.0","id":true,"method":"daemon.ping"}',
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.list","params":[1,2]}' % n,
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.list","params":"x"}' % n,
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.show","params":{"id":42}}' % n,
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.show","params":{}}' % n,
            b'{"jsonrpc":"2.0","id":%d}' % n,
            b'[{"jsonrpc":"2.0","id":%d,"method":"daemon.ping"}]' % n,
            b'[]', b'null', b'"x"', b'1', b'true',
            b'{"jsonrpc":"2.0","id":%d,"method":"' % n + b"x" * 100000 + b'"}',
            b'{"jsonrpc":"2.0","id":%d,"method":"nope.nothing"}' % n,
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.list","params":{"limit":0}}' % n,
            b'{"jsonrpc":"2.0","id":%d,"method":"photos.show","params":{"id":"' % n + b"a" * 200000 + b'"}}',
            b'{"jsonrpc":"2.0","jsonrpc":"2.0","id":%d,"method":"nope"}' % n,
        ]), True
    if kind == "unicode":
        text = "".join(chr(rng.choice([0x202E, 0xFEFF, 0x1F600, 0x7F, 0x85, 0x2028, 0xD7FF, 0x10FFFF, 0x300])) for _ in range(rng.randint(1, 50)))
        return kind, json.dumps({"jsonrpc": "2.0", "id": n, "method": "photos.show",
                                 "params": {"id": "unsplash:" + text}}, ensure_ascii=rng.random() < 0.5).encode(), True
    # mutate: a valid request with a few bytes changed; the answer may be a result or an error
    data = bytearray(valid_request(rng, n))
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(data))
        if op < 0.4:
            data[i] = rng.getrandbits(8)
        elif op < 0.7:
            del data[i]
        else:
            data.insert(i, rng.getrandbits(8))
    return kind, bytes(data).replace(b"\n", b" "), False


def valid_response(answer, must_error):
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0" or "id" not in answer:
        return "not a JSON-RPC 2.0 response"
    if ("result" in answer) == ("error" in answer):
        return "neither result nor error (or both)"
    if "error" in answer:
        error = answer["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):
            return "malformed error object"
        if not (-32768 <= error["code"] <= -32000):
            return f"error code {error['code']} outside the reserved range"
        if not isinstance((error.get("data") or {}).get("kind"), str):
            return "error without data.kind"
    elif must_error:  # True or "silent_or_error"
        return "a result for a line that is not a valid request"
    return None


def fuzz(daemon, figures, lines, rng):
    sampler = RssSampler(daemon.proc.pid)
    problems, examples, answered, by_kind = 0, [], 0, {}
    conn = daemon.rpc(timeout=30)
    started = time.monotonic()
    sent = 0
    oversize = 0
    biggest_answer = 0
    batch = 64
    while sent < lines:
        if rng.random() < 0.1:  # now and then (per batch of 64) an oversize line: too_large, then the connection closes
            oversize += 1
            sent += 1
            size = rng.choice([MAX_LINE + 1, MAX_LINE + 4096, 4 * MAX_LINE])
            try:
                try:
                    conn.send_line(b"x" * size)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the daemon stopped reading after the limit; its answer is already on its way
                line = conn.read_line(timeout=30)
                answer = json.loads(line) if line else None
                why = valid_response(answer, True) if answer else "no answer"
                if not why and (answer["error"].get("data") or {}).get("kind") != "too_large":
                    why = f"kind {(answer['error'].get('data') or {}).get('kind')}, want too_large"
                if not why:
                    try:
                        if conn.read_line(timeout=10) is not None:
                            why = "the connection stayed open after too_large"
                    except ConnectionResetError:
                        # The daemon drains what follows a refusal (up to 4 MiB or 2 s) before it closes,
                        # so an oversize line ends in an orderly close, never a reset.
                        why = "the connection was reset after too_large instead of closed"
            except (OSError, ValueError) as error:
                why = f"{error!r}"
            if why:
                problems += 1
                examples.append(f"oversize {size}: {why}")
            conn.close()
            conn = daemon.rpc(timeout=30)
            continue
        pending = []
        out = bytearray()
        for _ in range(min(batch, lines - sent)):
            sent += 1
            kind, data, must_error = fuzz_line(rng, sent)
            by_kind[kind] = by_kind.get(kind, 0) + 1
            sentinel = b'{"jsonrpc":"2.0","id":"sentinel-%d","method":"daemon.ping"}' % sent
            out += data + b"\n" + sentinel + b"\n"
            pending.append((kind, data, must_error, "sentinel-%d" % sent))
        # Write from a thread while reading here: a client that writes megabytes without reading
        # would be the one that never reads (the daemon stops reading it, by design).
        def write(sock=conn.sock, out=bytes(out)):
            try:
                sock.sendall(out)
            except OSError:
                pass
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        try:
            for kind, data, must_error, sentinel in pending:
                answers = []
                while True:
                    line = conn.read_line(timeout=30)
                    if line is None:
                        raise Failure("connection closed")
                    biggest_answer = max(biggest_answer, len(line))
                    try:
                        answer = json.loads(line)
                    except ValueError:
                        answers.append(("unparseable", line[:200]))
                        continue
                    if isinstance(answer, dict) and answer.get("id") == sentinel:
                        if "result" not in answer:
                            answers.append(("sentinel failed", answer))
                        break
                    answers.append(answer)
                answered += len(answers)
                why = None
                if must_error is True and len(answers) != 1:
                    why = f"{len(answers)} answers"
                elif len(answers) > 1:
                    why = f"{len(answers)} answers"
                for answer in answers:
                    why = why or (valid_response(answer, must_error) if isinstance(answer, dict) else str(answer))
                if why:
                    problems += 1
                    if len(examples) < 8:
                        examples.append(f"{kind} {data[:80]!r}: {why}: {str(answers)[:200]}")
        except (OSError, Failure) as error:
            problems += 1
            examples.append(f"batch ending at line {sent}: {error!r}; daemon running: {daemon.running()}")
            if not daemon.running():
                break
            conn.close()
            conn = daemon.rpc(timeout=30)
        writer.join(timeout=30)
    conn.close()
    elapsed = time.monotonic() - started
    alive = daemon.running()
    peak = sampler.stop()
    for e in examples:
        figures.bug(f"control fuzz: {e}")
    figures.add("fuzzed lines: daemon up, every answer a valid JSON-RPC error", sent, problems + (0 if alive else 1),
                f"{oversize} oversize; {answered} answers (largest {biggest_answer} bytes); {sent / elapsed:.0f} lines/s; "
                f"max RSS {peak / 1024:.1f} MiB")
    figures.note("fuzzed lines by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))
    return peak


def fractional_ids(daemon, figures):
    """An id must be a string, an integer or null (docs/protocol.md). Numbers that are not integers
    but round to one as a double must not be answered as if they were that integer."""
    bad = []
    cases = [b"-1e-999999", b"1e-400", b"0." + b"0" * 400 + b"1", b"1.0000000000000000001", b"2.5", b"1e400"]
    conn = daemon.rpc(timeout=10)
    for literal in cases:
        conn.send_line(b'{"jsonrpc":"2.0","id":' + literal + b',"method":"daemon.ping"}')
        answer = json.loads(conn.read_line())
        if "error" not in answer:
            bad.append(f"id {literal[:30].decode()} answered as id {answer.get('id')!r} with a result")
    conn.close()
    for b in bad:
        figures.bug(f"control: {b}")
    figures.add("a non-integer numeric id is refused, not rounded", len(cases), len(bad))


def idle(daemon, figures, count):
    sampler = RssSampler(daemon.proc.pid)
    socks, busy, closed_early = [], 0, 0
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(daemon.socket_path)
        socks.append(s)
    time.sleep(2)
    for s in socks:
        s.settimeout(0.0)
        try:
            data = s.recv(4096)
            if data:
                answer = json.loads(data.split(b"\n")[0])
                if (answer.get("error", {}).get("data") or {}).get("kind") == "busy":
                    busy += 1
            else:
                closed_early += 1
        except (BlockingIOError, ValueError):
            pass
    served = count - busy
    # While they are held: is the daemon alive, and does a held connection still get answers?
    probe = socks[0]
    probe.settimeout(10)
    probe.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}\n')
    held_ok = b'"pong"' in probe.recv(4096)
    for s in socks:
        s.close()
    time.sleep(0.5)
    try:
        daemon.call("daemon.ping", timeout=10)
        after_ok = True
    except Exception:  # noqa: BLE001
        after_ok = False
    peak = sampler.stop()
    ok = daemon.running() and held_ok and after_ok and busy > 0
    if not ok:
        figures.bug(f"control idle: running {daemon.running()}, held connection answered {held_ok}, "
                    f"new connection answered after {after_ok}, busy {busy}")
    figures.add(f"{count} idle connections: daemon up, the excess told busy, served again afterwards", 1, 0 if ok else 1,
                f"{served} held (limit 256), {busy} got busy, max RSS {peak / 1024:.1f} MiB")
    return peak


def slow_subscriber(daemon, figures, toggles, photo):
    sampler = RssSampler(daemon.proc.pid)
    sub = daemon.rpc(timeout=30)
    sub.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sub.call("events.subscribe")
    worker = daemon.rpc(timeout=30)
    started = time.monotonic()
    worst = 0.0
    for i in range(toggles):
        t0 = time.monotonic()
        worker.call("photos.like" if i % 2 == 0 else "photos.unlike", {"id": photo})
        worst = max(worst, time.monotonic() - t0)
    elapsed = time.monotonic() - started
    t0 = time.monotonic()
    daemon.call("daemon.ping", timeout=10)
    ping = time.monotonic() - t0
    rss_during = sampler.max_kb
    # Now read everything the subscriber was sent.
    missed = 0
    events = 0
    sub.sock.settimeout(3)
    try:
        while True:
            line = sub.read_line(timeout=3)
            if line is None:
                break
            message = json.loads(line)
            if message.get("method") == "event":
                events += 1
                if message["params"]["type"] == "events.missed":
                    missed += message["params"].get("data", {}).get("missed", 0) or message["params"].get("data", {}).get("count", 0) or 1
    except (socket.timeout, OSError):
        pass
    sub.close()
    worker.close()
    peak = sampler.stop()
    ok = daemon.running() and missed > 0
    if not ok:
        figures.bug(f"control slow subscriber: running {daemon.running()}, events read {events}, missed reported {missed}")
    figures.add("a subscriber that never reads: RSS bounded, others served, told what it missed", 1, 0 if ok else 1,
                f"{toggles} like/unlike in {elapsed:.1f}s (slowest {worst * 1000:.0f} ms); {events} events then read, "
                f"missed reported {missed}; max RSS {peak / 1024:.1f} MiB (during the flood {rss_during / 1024:.1f})")
    return peak


def run(devstack, base, figures, trials, rng, short=False):
    daemon = Daemon(fresh_dir(base, "control"), env=devstack.daemon_env()).start()
    try:
        start_rss = rss_kb(daemon.proc.pid)
        daemon.signup()
        photo = populate(daemon, 1)[0]
        figures.note(f"RSS after start and sign-up: {start_rss / 1024:.1f} MiB")
        peaks = [fuzz(daemon, figures, 10000 if short else 100000, rng)]
        fractional_ids(daemon, figures)
        peaks.append(idle(daemon, figures, 1000))
        peaks.append(slow_subscriber(daemon, figures, 1000 if short else 5000, photo))
        end_rss = rss_kb(daemon.proc.pid)
        figures.note(f"max RSS over the part {max(peaks) / 1024:.1f} MiB; at the end {end_rss / 1024:.1f} MiB")
        if max(peaks) > 512 * 1024:
            figures.add("RSS stays under 512 MiB", 1, 1, f"{max(peaks) / 1024:.0f} MiB")
    finally:
        daemon.stop()
