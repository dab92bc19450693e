"""Fixtures of the desktop signals' tests: two private D-Bus buses (system and session) and the
stand-in services on them, both fresh for every test and stopped after it, failed or not."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The harness's modules (buses, standins) and the shared splashtest, whether or not PYTHONPATH
# names python/ as integration/desktop/run does.
for path in (HERE, os.path.join(ROOT, "python")):
    if path not in sys.path:
        sys.path.insert(0, path)

from buses import DesktopBuses  # noqa: E402
from standins import StandIns  # noqa: E402


@pytest.fixture
def buses(tmp_path):
    """Running DesktopBuses, their sockets, configs and logs in the test's tmp_path."""
    with DesktopBuses(tmp_path) as started:
        yield started


@pytest.fixture
def standins(buses):
    """Running StandIns on `buses`: NetworkManager, UPower, power-profiles-daemon and logind on the
    system bus, the notification server on the session bus."""
    with StandIns(buses.system_address, buses.session_address) as started:
        yield started
