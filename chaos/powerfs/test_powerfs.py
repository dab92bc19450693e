"""powerfs's own tests: what survives a power cut is what was made durable, as POSIX has it, and a
seeded cut is one of the outcomes a real disk could leave. Each test mounts powerfs over a directory of
its own, writes through the mount as a program would, cuts, and looks at what the backing directory
holds (as the next mount would show it). Needs root, /dev/fuse and fusermount3."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
POWERFS = os.path.join(HERE, "powerfs.py")


class Mount:
    def __init__(self, root):
        self.backing, self.point, self.state = (os.path.join(root, name) for name in ("backing", "mnt", "state"))
        for path in (self.backing, self.point, self.state):
            os.makedirs(path, exist_ok=True)
        self.process = None
        self.writers = []

    def up(self):
        self.process = subprocess.Popen([sys.executable, POWERFS, "mount", self.backing, self.point, "--state", self.state],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.state, "log"), "a"))
        deadline = time.monotonic() + 10
        while not os.path.ismount(self.point):
            assert self.process.poll() is None, open(os.path.join(self.state, "log")).read()
            assert time.monotonic() < deadline, "powerfs did not mount"
            time.sleep(0.02)

    def cut(self, seed=None, garble_tail=None):
        """Cuts the power, waits for the unmount, and returns what the cut hit."""
        argv = ["cut"] + ([] if seed is None else ["--seed", str(seed)]) + (
            [] if garble_tail is None else ["--garble-tail", garble_tail])
        report = self.ask(*argv)
        assert self.process.wait(timeout=10) == 0
        assert not os.path.ismount(self.point)
        return report

    def ask(self, command, *args):
        """`powerfs.py COMMAND --state DIR ARGS`'s answer."""
        argv = [sys.executable, POWERFS, command, "--state", self.state, *args]
        return json.loads(subprocess.run(argv, check=True, capture_output=True, text=True, timeout=30).stdout)

    def writer(self, name, *steps):
        """A process writing the existing file `name` through the mount: each step a 4 KiB block of one
        letter, "fsync" or "fdatasync"."""
        process = subprocess.Popen([sys.executable, "-c", WRITER, self.path(name), *steps])
        self.writers.append(process)
        return process

    def frozen(self):
        """Waits for powerfs to freeze; what `frozen` says then."""
        deadline = time.monotonic() + 10
        while not (answer := self.ask("frozen"))["frozen"]:
            assert time.monotonic() < deadline, "powerfs did not freeze"
            time.sleep(0.02)
        return answer

    def down(self):
        # A writer held by a freeze dies of SIGKILL only once answered: if no cut came, only powerfs's
        # end (the kernel then fails what it held) lets it go.
        for writer in self.writers:
            writer.kill()
        if self.process and self.process.poll() is None:
            subprocess.run(["fusermount3", "-u", "-z", self.point], check=False)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for writer in self.writers:
            writer.wait(timeout=10)

    def path(self, name):
        return os.path.join(self.point, name)

    def durable(self, name):
        """What the disk holds under `name` after the cut, or None."""
        path = os.path.join(self.backing, name)
        return open(path, "rb").read() if os.path.exists(path) else None


WRITER = """
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for step in sys.argv[2:]:
    os.fsync(fd) if step == "fsync" else os.fdatasync(fd) if step == "fdatasync" else os.write(fd, step.encode() * 4096)
"""


@pytest.fixture
def mount(tmp_path):
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        pytest.skip("powerfs needs root and /dev/fuse")
    made = Mount(str(tmp_path))
    yield made
    made.down()


def write(path, data, sync=False):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def overwrite(path, data):
    """Writes `data` over the start of an existing file, with no fsync."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)


def sync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def test_an_fsynced_file_in_an_fsynced_directory_survives(mount):
    mount.up()
    write(mount.path("kept"), b"saved", sync=True)
    sync_dir(mount.point)
    mount.cut()
    assert mount.durable("kept") == b"saved"


def test_bytes_written_since_the_last_fsync_are_lost(mount):
    write(os.path.join(mount.backing, "note"), b"old words")
    mount.up()
    overwrite(mount.path("note"), b"NEW")
    assert open(mount.path("note"), "rb").read() == b"NEW words", "the live view has the write"
    report = mount.cut()
    assert mount.durable("note") == b"old words"
    assert report["files_rolled_back"] == 1


def test_fdatasync_makes_a_files_bytes_durable(mount):
    write(os.path.join(mount.backing, "db"), b"page one")
    mount.up()
    fd = os.open(mount.path("db"), os.O_WRONLY)
    os.pwrite(fd, b"PAGE", 0)
    os.fdatasync(fd)
    os.pwrite(fd, b"lost", 0)
    os.close(fd)
    mount.cut()
    assert mount.durable("db") == b"PAGE one"


def test_a_new_file_whose_directory_was_not_fsynced_is_gone(mount):
    mount.up()
    write(mount.path("fresh"), b"data", sync=True)
    mount.cut()
    assert mount.durable("fresh") is None


def test_an_unsynced_rename_is_rolled_back(mount):
    write(os.path.join(mount.backing, "a"), b"content")
    mount.up()
    os.rename(mount.path("a"), mount.path("b"))
    report = mount.cut()
    assert (mount.durable("a"), mount.durable("b")) == (b"content", None)
    assert report["dirs_rolled_back"] == 1


def test_an_unlink_the_directory_never_made_durable_is_undone(mount):
    write(os.path.join(mount.backing, "photo.jpg"), b"\xff\xd8 bytes")
    mount.up()
    os.unlink(mount.path("photo.jpg"))
    mount.cut()
    assert mount.durable("photo.jpg") == b"\xff\xd8 bytes"


def test_a_rename_made_durable_by_its_directory_survives_with_the_files_bytes(mount):
    """The atomic-replace idiom done right: write, fsync, rename, fsync the directory."""
    write(os.path.join(mount.backing, "config"), b"v1")
    mount.up()
    write(mount.path("config.tmp"), b"v2", sync=True)
    os.rename(mount.path("config.tmp"), mount.path("config"))
    sync_dir(mount.point)
    mount.cut()
    assert (mount.durable("config"), mount.durable("config.tmp")) == (b"v2", None)


def test_a_rename_after_fsync_of_the_file_but_not_the_directory_may_go_either_way(mount):
    outcomes = set()
    for seed in range(12):
        for name in os.listdir(mount.backing):
            os.unlink(os.path.join(mount.backing, name))
        write(os.path.join(mount.backing, "config"), b"v1")
        mount.up()
        write(mount.path("config.tmp"), b"v2", sync=True)
        os.rename(mount.path("config.tmp"), mount.path("config"))
        mount.cut(seed=seed)
        outcome = (mount.durable("config"), mount.durable("config.tmp"))
        assert outcome in {(b"v1", None), (b"v2", None)}, f"seed {seed}: {outcome}"
        outcomes.add(outcome)
    assert outcomes == {(b"v1", None), (b"v2", None)}


def test_a_seeded_cut_keeps_drops_or_garbles_each_unsynced_block_and_repeats_itself(mount):
    old = bytes(range(256)) * 64  # 16 KiB: four blocks
    new = b"\x07" * len(old)
    results = []
    for _ in range(2):
        write(os.path.join(mount.backing, "big"), old)
        mount.up()
        overwrite(mount.path("big"), new)
        report = mount.cut(seed=7)
        results.append((mount.durable("big"), report))
    (data, report), (again, _) = results
    assert data == again, "the same seed cuts the same way"
    assert len(data) == len(old)
    fates = ["kept" if data[i:i + 4096] == new[i:i + 4096] else "dropped" if data[i:i + 4096] == old[i:i + 4096] else "garbled"
             for i in range(0, len(old), 4096)]
    assert fates.count("kept") == report["blocks_kept"] and fates.count("garbled") == report["blocks_garbled"], (fates, report)


def test_a_directory_and_its_symlinks_come_back_as_they_were_made_durable(mount):
    mount.up()
    os.mkdir(mount.path("Pictures"))
    os.symlink("../library/a.jpg", mount.path("Pictures/a.jpg"))
    sync_dir(mount.path("Pictures"))
    sync_dir(mount.point)
    os.symlink("../library/b.jpg", mount.path("Pictures/b.jpg"))
    mount.cut()
    assert os.readlink(os.path.join(mount.backing, "Pictures", "a.jpg")) == "../library/a.jpg"
    assert not os.path.lexists(os.path.join(mount.backing, "Pictures", "b.jpg"))


def test_a_hard_link_made_durable_is_one_file_after_the_cut(mount):
    """As the Pictures folder links a library file: two names, one inode, whatever the cut."""
    mount.up()
    os.mkdir(mount.path("library"))
    os.mkdir(mount.path("Pictures"))
    write(mount.path("library/a.jpg"), b"photo", sync=True)
    os.link(mount.path("library/a.jpg"), mount.path("Pictures/a.jpg"))
    assert os.stat(mount.path("library/a.jpg")).st_ino == os.stat(mount.path("Pictures/a.jpg")).st_ino, "one file on the mount"
    assert os.listdir(mount.path("Pictures")) == ["a.jpg"] and sorted(os.listdir(mount.point)) == ["Pictures", "library"]
    for directory in ("library", "Pictures", ""):
        sync_dir(mount.path(directory) if directory else mount.point)
    mount.cut(seed=7)
    first, second = (os.path.join(mount.backing, name) for name in ("library/a.jpg", "Pictures/a.jpg"))
    assert open(second, "rb").read() == b"photo"
    assert os.stat(first).st_ino == os.stat(second).st_ino


def test_sqlite_in_wal_mode_keeps_what_full_synchronous_committed(mount):
    """A real program's use: SQLite commits with synchronous=FULL survive; the database is whole."""
    import sqlite3
    mount.up()
    db = sqlite3.connect(mount.path("store.sqlite"))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE likes (id TEXT PRIMARY KEY)")
    db.commit()
    for n in range(20):
        db.execute("INSERT INTO likes VALUES (?)", (f"photo{n}",))
        db.commit()
    db.close()
    # SQLite fsyncs the directory when it creates the database and its WAL.
    mount.cut()
    db = sqlite3.connect(os.path.join(mount.backing, "store.sqlite"))
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM likes").fetchone()[0] == 20


def test_a_write_frozen_at_its_nth_is_never_done_and_the_cut_comes_before_it(mount):
    write(os.path.join(mount.backing, "log"), b"")
    mount.up()
    assert mount.ask("arm", "--file", "log", "--op", "write", "--nth", "2") == {"armed": True, "file": "log", "op": "write", "nth": 2}
    assert mount.ask("frozen") == {"frozen": False, "op": None, "path": None}
    writer = mount.writer("log", "A", "fsync", "B")
    assert mount.frozen() == {"frozen": True, "op": "write", "path": "log"}
    assert open(os.path.join(mount.backing, "log"), "rb").read() == b"A" * 4096, "the held write is not done"
    writer.send_signal(signal.SIGKILL)
    report = mount.cut()
    assert writer.wait(timeout=10) == -signal.SIGKILL
    assert mount.durable("log") == b"A" * 4096
    assert report["frozen_at"] == {"op": "write", "path": "log"}


def test_a_freeze_at_an_fsync_leaves_what_it_would_have_synced_unsynced(mount):
    """As a WAL's commit cut at its fsync: fdatasync counts, and the blocks before it are lost."""
    os.mkdir(os.path.join(mount.backing, "db"))
    write(os.path.join(mount.backing, "db", "wal"), b"")
    mount.up()
    mount.ask("arm", "--file", "wal", "--op", "fsync", "--nth", "1")
    writer = mount.writer("db/wal", "A", "B", "fdatasync")
    assert mount.frozen() == {"frozen": True, "op": "fsync", "path": "db/wal"}
    writer.send_signal(signal.SIGKILL)
    report = mount.cut()
    assert writer.wait(timeout=10) == -signal.SIGKILL
    assert mount.durable("db/wal") == b""
    assert report["files"] == {"db/wal": {"blocks_garbled": 0, "blocks_kept": 0, "bytes_dropped": 8192, "length": "durable"}}
    assert report["frozen_at"] == {"op": "fsync", "path": "db/wal"}


def test_garble_tail_tears_the_last_unsynced_block_of_the_file_it_names(mount):
    synced = b"1" * 4096 + b"2" * 4096 + b"3" * 4096
    tears = []
    for _ in range(2):
        write(os.path.join(mount.backing, "wal"), synced)
        write(os.path.join(mount.backing, "other"), b"kept")
        mount.up()
        for name, data in (("wal", b"4" * 4096), ("wal", b"5" * 4096), ("other", b" lost")):
            fd = os.open(mount.path(name), os.O_WRONLY | os.O_APPEND)
            os.write(fd, data)
            os.close(fd)
        report = mount.cut(garble_tail="wal")
        data = mount.durable("wal")
        assert len(data) == 5 * 4096, "the current length"
        assert data[:3 * 4096] == synced
        assert data[3 * 4096:4 * 4096] == bytes(4096), "unsynced, not the last, and no durable bytes there: zeros"
        assert data[4 * 4096:] not in (b"5" * 4096, bytes(4096)), "the last unsynced block is garbage"
        assert mount.durable("other") == b"kept", "the other files are cut as without garble_tail"
        assert report["files"] == {
            "wal": {"blocks_garbled": 1, "blocks_kept": 0, "bytes_dropped": 4096, "length": "current"},
            "other": {"blocks_garbled": 0, "blocks_kept": 0, "bytes_dropped": 5, "length": "durable"}}
        assert (report["blocks_garbled"], report["garble_tail"], report["frozen_at"]) == (1, "wal", None)
        tears.append(data)
    assert tears[0] == tears[1], "without a seed the garbage is the same again"


def test_a_seeded_cuts_report_names_the_files_with_unsynced_changes(mount):
    """Through the socket as the first powerfs had it: a line without "command" is a cut, and a
    connection may ask more than once."""
    os.mkdir(os.path.join(mount.backing, "sub"))
    for name in ("a", "b", "sub/c", "sub/d"):
        write(os.path.join(mount.backing, name), name.encode() * 8192)
    mount.up()
    overwrite(mount.path("a"), b"x" * 5000)
    overwrite(mount.path("sub/c"), b"y" * 100)
    write(mount.path("sub/d"), b"synced", sync=True)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.path.join(mount.state, "control.sock"))
    lines = connection.makefile()
    connection.sendall(b'{"command": "power on"}\n')
    assert "error" in json.loads(lines.readline())
    connection.sendall(b'{"seed": 5}\n')
    report = json.loads(lines.readline())
    assert mount.process.wait(timeout=10) == 0
    assert set(report["files"]) == {"a", "sub/c"}
    assert all(hit["length"] in ("durable", "current") for hit in report["files"].values())
    for key in ("blocks_garbled", "blocks_kept", "bytes_dropped"):
        assert report[key] == sum(hit[key] for hit in report["files"].values()), key
    assert report["files_rolled_back"] == 2


def test_a_cut_ends_powerfs_while_another_mount_namespace_holds_a_copy(mount):
    """A mount namespace made while powerfs is mounted (a test booting systemd under unshare) keeps a copy
    of the mount: the lazy unmount alone left powerfs waiting for as long as that namespace lived."""
    mount.up()
    write(mount.path("kept"), b"durable", sync=True)
    sync_dir(mount.point)
    holder = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sleep", "60"])
    try:
        time.sleep(0.5)
        mount.cut()  # its process ends within its 10 s, or this fails
        assert mount.durable("kept") == b"durable"
    finally:
        holder.kill()
        holder.wait()
