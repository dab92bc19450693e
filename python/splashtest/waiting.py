"""Waiting for a state that settles a moment after its event."""
import time

from .errors import Failure


def wait_until(what, predicate, timeout=30.0, interval=0.05):
    """Calls `predicate` every `interval` s until it returns something true, and returns that; a
    predicate that raises is read as "not yet". After `timeout` s: Failure naming `what` and the last
    value or error seen."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as error:  # noqa: BLE001 - the predicate may fail while things settle
            last = error
        time.sleep(interval)
    raise Failure(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
