"""Two private D-Bus buses for the desktop signals' tests: one standing in for the system bus, one
for the session bus, each a dbus-daemon of its own on a unix socket in a directory the test gives.

    with DesktopBuses(tmp_path) as buses:
        env = dict(os.environ, **buses.env)     # DBUS_SYSTEM_BUS_ADDRESS, DBUS_SESSION_BUS_ADDRESS
        ...
        buses.restart_system()                  # the system bus goes away and comes back

The policy allows everything (any user, any name, any message): the tests are about what splashd
does with the services' answers and signals, not about the bus's access control.
"""
import os
import select
import signal
import subprocess
import time
from xml.sax.saxutils import escape

from splashtest.errors import Failure

DBUS_DAEMON = "/usr/bin/dbus-daemon"
# sockaddr_un.sun_path holds 108 bytes, the terminating NUL included.
MAX_SOCKET_PATH = 107
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>{type}</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""


class _Bus:
    """One dbus-daemon: its config file, socket, log and process."""

    def __init__(self, directory, kind):
        self.kind = kind
        self.socket = os.path.join(directory, f"{kind}_bus_socket")
        self.config = os.path.join(directory, f"{kind}-bus.conf")
        self.log = os.path.join(directory, f"{kind}-bus.log")
        self.process = None
        if len(os.fsencode(self.socket)) > MAX_SOCKET_PATH:
            raise Failure(f"{self.socket} is longer than a unix socket's path may be ({MAX_SOCKET_PATH} bytes)")
        with open(self.config, "w") as config:
            config.write(CONFIG.format(type=kind, socket=escape(self.socket)))

    @property
    def address(self):
        return f"unix:path={self.socket}"

    def start(self):
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [DBUS_DAEMON, f"--config-file={self.config}", "--nofork", "--print-address"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, close_fds=True)
        try:
            self._await_address()
        except BaseException:
            self.stop()
            raise

    def _await_address(self):
        """dbus-daemon prints its address once it listens: from then on a client can connect."""
        deadline = time.monotonic() + START_TIMEOUT
        printed = b""
        while not printed.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise Failure(f"the {self.kind} bus did not print its address within {START_TIMEOUT:.0f}s; "
                              f"see {self.log}")
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                raise Failure(f"the {self.kind} bus exited ({self.process.wait()}) before listening; see {self.log}")
            printed += chunk
        # Nothing more is printed; holding the pipe open would only leak its descriptor.
        self.process.stdout.close()

    def kill(self):
        """SIGKILL, as a crash: the socket file stays behind, and the next daemon replaces it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._forget()

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._forget()

    def _forget(self):
        if self.process.stdout and not self.process.stdout.closed:
            self.process.stdout.close()
        self.process = None


class DesktopBuses:
    """A private system bus and session bus, each on a unix socket in `directory` (which must exist
    and stay until stop(); configs and the daemons' logs are written there too)."""

    def __init__(self, directory):
        self.directory = os.fspath(directory)
        self._system = _Bus(self.directory, "system")
        self._session = _Bus(self.directory, "session")

    def start(self):
        try:
            self._system.start()
            self._session.start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        """Stops both daemons and reaps them (idempotent)."""
        try:
            self._session.stop()
        finally:
            self._system.stop()

    def restart_system(self):
        """Kills the system bus daemon and starts a new one on the same socket path: every client's
        connection to it ends, and a client that connects again finds an empty bus."""
        self._system.kill()
        self._system.start()

    @property
    def system_address(self):
        return self._system.address

    @property
    def session_address(self):
        return self._session.address

    @property
    def env(self):
        return {"DBUS_SYSTEM_BUS_ADDRESS": self.system_address, "DBUS_SESSION_BUS_ADDRESS": self.session_address}

    @property
    def pids(self):
        """{"system": pid, "session": pid} of the running daemons (None for one not running)."""
        return {bus.kind: bus.process.pid if bus.process else None for bus in (self._system, self._session)}

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
