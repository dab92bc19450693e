"""Fixtures of the gallery's browser tests: a devstack of the module's own, splashd daemons on it,
and a headless Chromium whose screenshot and page source are kept when a test fails."""
import os
import socket
import subprocess
import tempfile

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from splashtest.daemon import Daemon
from splashtest.devstack import Devstack

BIN = os.environ.get("SPLASHD_BIN_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug"))
ARTEFACTS = os.environ.get("GALLERY_ARTEFACTS") or tempfile.mkdtemp(prefix="splashd-gallery-artefacts.")


@pytest.fixture(scope="module")
def devstack():
    with Devstack(photos=60, prefix="splashd-devstack-gallery-") as stack:
        yield stack


@pytest.fixture
def daemons(devstack, tmp_path):
    """Starts daemons on demand (`daemons()` → a running Daemon, its gallery on a port of its own)."""
    started = []

    def start(web_port=0, env=None, config=None):
        env = dict(devstack.daemon_env(), SPLASHD_WEB_PORT=str(web_port), **(env or {}))
        daemon = Daemon(str(tmp_path / f"device{len(started)}"), os.path.join(BIN, "splashd"), env=env, config=config)
        daemon.start()
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()


def free_port():
    """A port free now, for a gallery that must keep its port across a restart."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def gallery_address(daemon):
    """`splashctl open --print`: the one-time address, asked as the person asks for it."""
    return subprocess.run(
        [os.path.join(BIN, "splashctl"), "--socket", daemon.socket_path, "open", "--print"],
        check=True, capture_output=True, text=True, timeout=30).stdout.strip()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.failed_call = report.failed


@pytest.fixture
def browser(request):
    """Headless Chromium in English, or in the language a test names (indirect parametrisation)."""
    language = getattr(request, "param", "en-US")
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
                     f"--lang={language}"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    # The WebSocket's frames, for the tests that read what the page asked and what it was told.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        yield driver
    finally:
        if getattr(request.node, "failed_call", False):
            base = os.path.join(ARTEFACTS, request.node.name)
            driver.save_screenshot(base + ".png")
            with open(base + ".html", "w") as page:
                page.write(driver.page_source)
        driver.quit()


def refusals(browser):
    """The JSON-RPC errors the page has received since the last look (each frame of the gallery's
    WebSocket is in Chromium's performance log)."""
    import json
    errors = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.webSocketFrameReceived":
            continue
        frame = json.loads(message["params"]["response"]["payloadData"])
        if "error" in frame:
            errors.append(frame["error"])
    return errors
