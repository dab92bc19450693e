"""Plain HTTP for talking to devstack and its stand-ins (urllib: nothing to install)."""
import json
import urllib.error
import urllib.request


def http(method, url, body=None, headers=None, timeout=30.0):
    """(status, headers, bytes) for any answer, never raising for an HTTP status."""
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def http_json(method, url, body=None, headers=None, timeout=30.0):
    """(status, decoded JSON) — or the raw bytes when the body is not JSON."""
    status, _, data = http(method, url, body, headers, timeout)
    try:
        return status, json.loads(data) if data else None
    except ValueError:
        return status, data
