#!/usr/bin/env python3
"""powerfs: a FUSE file system for power-loss tests. It passes everything through to a real backing
directory (which always holds what a program sees, as the page cache does) and keeps, beside it, what
the disk would hold: a file's bytes as of its last fsync, a directory's entries as of its last fsync of
the directory. On command it "cuts the power": it rebuilds the backing directory from what was durable
and unmounts; the test mounts it anew over what survived.

    powerfs.py mount BACKING MOUNTPOINT --state DIR     (foreground; DIR: outside BACKING, same file system)
    powerfs.py cut --state DIR [--seed N] [--garble-tail NAME]
                                                        (the mount's owner must have ended its writers)
    powerfs.py arm --state DIR --file NAME --op write|fsync --nth K
    powerfs.py frozen --state DIR

A cut without a seed drops everything POSIX lets go: a file's bytes written since its last fsync
(fdatasync counts), and a directory's creates, renames and unlinks since its last fsync. With a seed it
is SQLite's crash VFS: each unsynced 4 KiB block of a file is kept, dropped (its durable bytes back) or
garbled at random, a file's length is its durable or its current one, and each directory changed since
its last fsync keeps its old entries or takes its new ones. With --garble-tail NAME, a file called NAME
that has unsynced changes is torn as a disk that wrote part of a run of sectors leaves a log's tail: it
has its current length and its durable bytes (zeros where it had none), but its last unsynced 4 KiB block
is garbage (from the seed, or a fixed one); the other files are cut as above. The cut writes what it hit
to DIR/report.json: the totals; "files", each file it had to decide on by its path (bytes dropped,
blocks kept and garbled, its length "durable" or "current"); "frozen_at", the operation it froze at.

`arm` cuts at exactly one operation: powerfs counts, from then on, the FUSE writes (or fsyncs, fdatasync
among them) of files called NAME, and does not do the Kth: it freezes, holding that operation and so
every one after it, until a cut, which sees the disk as it stood just before it; the operation then
fails with EIO. `frozen` says whether it froze and where. A writer held there dies of SIGKILL only once
answered: kill it, cut, then wait for it.

The commands are JSON lines on DIR/control.sock, each answered by one line:
    {"command": "cut", "seed": N|null, "garble_tail": NAME|null}      -> the report (no "command": a cut)
    {"command": "arm", "file": NAME, "op": "write"|"fsync", "nth": K} -> {"armed": true, "file": ..., ...}
    {"command": "frozen"}                                             -> {"frozen": bool, "op": ..., "path": ...}
A request it cannot do is answered {"error": ...}. After a cut powerfs unmounts and ends.

The model is per inode of the backing directory: a rename keeps the inode, so an entry is a name and an
inode, and a file's durable bytes belong to its inode whatever it is called now."""
import argparse
import errno
import functools
import json
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import threading

BLOCK = 4096


class Model:
    """What the disk holds, beside the live backing directory. `listings[dir inode]` is a directory's
    durable entries, {name: (inode, kind, symlink target)}; `durable_copy[file inode]` is the path of a
    copy of the file's durable bytes, made before its first change after an fsync (None: a file created
    since, whose durable bytes are none); `kept[inode]` a hard link to a file some durable listing names
    that is gone from the live tree."""

    def __init__(self, backing, state):
        self.backing = os.path.realpath(backing)
        self.state = state
        self.copies = os.path.join(state, "copies")
        os.makedirs(self.copies, exist_ok=True)
        self.listings = {}
        self.durable_copy = {}
        self.kept = {}
        self.changed_dirs = set()
        for directory, _, _ in os.walk(self.backing):
            self.listings[os.lstat(directory).st_ino] = self.listing(directory)

    def real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def listing(self, directory):
        entries = {}
        for name in os.listdir(directory):
            info = os.lstat(os.path.join(directory, name))
            kind = "dir" if stat.S_ISDIR(info.st_mode) else "link" if stat.S_ISLNK(info.st_mode) else "file"
            target = os.readlink(os.path.join(directory, name)) if kind == "link" else None
            entries[name] = (info.st_ino, kind, target)
        return entries

    def durably_named(self, inode):
        return any(entry[0] == inode for listing in self.listings.values() for entry in listing.values())

    # Changes, called before the backing directory is changed.

    def before_write(self, real):
        inode = os.lstat(real).st_ino
        if inode not in self.durable_copy:
            copy = os.path.join(self.copies, str(inode))
            shutil.copyfile(real, copy)
            self.durable_copy[inode] = copy

    def entry_changed(self, real):
        """`real`'s directory has an entry made, removed or renamed since its last fsync."""
        self.changed_dirs.add(os.lstat(os.path.dirname(real)).st_ino)

    def created(self, real):
        self.durable_copy[os.lstat(real).st_ino] = None
        self.entry_changed(real)

    def before_unlink(self, real):
        info = os.lstat(real)
        self.entry_changed(real)
        if not stat.S_ISDIR(info.st_mode) and info.st_nlink == 1 and info.st_ino not in self.kept \
                and self.durably_named(info.st_ino):
            link = os.path.join(self.copies, f"kept-{info.st_ino}")
            os.link(real, link)
            self.kept[info.st_ino] = link

    def renamed(self, old, new):
        self.entry_changed(old)
        self.entry_changed(new)

    def synced_file(self, real):
        inode = os.lstat(real).st_ino
        copy = self.durable_copy.pop(inode, None)
        if copy:
            os.unlink(copy)

    def synced_dir(self, real):
        inode = os.lstat(real).st_ino
        self.listings[inode] = self.listing(real)
        self.changed_dirs.discard(inode)

    # The cut.

    def cut(self, seed=None, garble_tail=None):
        chance = random.Random(seed) if seed is not None else None
        # A torn tail without a seed is still the same garbage again.
        tear = (garble_tail, chance or random.Random(0)) if garble_tail is not None else None
        report = {"seed": seed, "garble_tail": garble_tail, "files_rolled_back": 0, "bytes_dropped": 0,
                  "blocks_garbled": 0, "blocks_kept": 0, "dirs_rolled_back": 0, "dirs_kept_new": 0, "files": {}}
        live = {}
        for directory, dirs, files in os.walk(self.backing):
            for name in dirs + files:
                path = os.path.join(directory, name)
                live.setdefault(os.lstat(path).st_ino, path)
        live[os.lstat(self.backing).st_ino] = self.backing
        listings = dict(self.listings)
        # In the order of their paths, and every listing by name below: a seed cuts the same way again
        # whatever inode numbers and directory order this run's files got.
        for path, inode in sorted((live[inode], inode) for inode in self.changed_dirs if inode in live):
            if chance is not None and chance.random() < 0.5:
                listings[inode] = self.listing(path)
                report["dirs_kept_new"] += 1
            else:
                report["dirs_rolled_back"] += 1
        rebuilt = self.backing.rstrip("/") + ".powercut"
        shutil.rmtree(rebuilt, ignore_errors=True)
        os.mkdir(rebuilt)
        self.materialize(os.lstat(self.backing).st_ino, rebuilt, listings, live, (rebuilt, chance, tear, report), {})
        # The rebuilt tree replaces the backing directory's contents; the directory itself stays, as
        # the mount point of the next mount names it.
        for name in os.listdir(self.backing):
            path = os.path.join(self.backing, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        for name in os.listdir(rebuilt):
            os.rename(os.path.join(rebuilt, name), os.path.join(self.backing, name))
        os.rmdir(rebuilt)
        shutil.rmtree(self.copies, ignore_errors=True)
        return report

    def materialize(self, inode, target, listings, live, cutting, made):
        """Writes the durable tree of directory `inode` under `target`; `made` maps each inode written so
        far to its first path: a file two durable listings name (hard links) is one file again. `cutting`
        is how files are cut, passed on to `file`."""
        for name, (child, kind, link_target) in sorted(listings.get(inode, {}).items()):
            path = os.path.join(target, name)
            if kind == "dir":
                os.mkdir(path)
                if child not in made:
                    made[child] = path
                    self.materialize(child, path, listings, live, cutting, made)
            elif kind == "link":
                os.symlink(link_target, path)
            elif child in made:
                os.link(made[child], path)
            else:
                made[child] = path
                self.file(child, path, live, *cutting)

    def file(self, inode, path, live, rebuilt, chance, tear, report):
        current_path = live.get(inode) or self.kept.get(inode)
        current = open(current_path, "rb").read() if current_path else b""
        if inode not in self.durable_copy:
            durable = current
        else:
            copy = self.durable_copy[inode]
            durable = open(copy, "rb").read() if copy else b""
        if durable == current:
            data = current
        else:
            hit = {"blocks_garbled": 0, "blocks_kept": 0, "bytes_dropped": 0, "length": "durable"}
            if tear is not None and os.path.basename(path) == tear[0]:
                data = torn(durable, current, tear[1], hit)
            elif chance is None:
                hit["bytes_dropped"] = max(len(current) - len(durable), 0) + sum(
                    1 for a, b in zip(current, durable) if a != b)
                data = durable
            else:
                data = seeded(durable, current, chance, hit)
            report["files"][os.path.relpath(path, rebuilt)] = hit
            report["files_rolled_back"] += 1
            for key in ("blocks_garbled", "blocks_kept", "bytes_dropped"):
                report[key] += hit[key]
        with open(path, "wb") as f:
            f.write(data)
        if current_path:
            shutil.copymode(current_path, path)


def seeded(durable, current, chance, hit):
    """SQLite's crash VFS: a length, durable or current, and each unsynced block kept, dropped or garbled."""
    hit["length"] = chance.choice(["durable", "current"])
    length = len(durable if hit["length"] == "durable" else current)
    out = bytearray()
    for start in range(0, length, BLOCK):
        new, old = current[start:start + BLOCK], durable[start:start + BLOCK]
        if new == old:
            out += new
            continue
        fate = chance.choice(["keep", "drop", "garble"])
        size = min(BLOCK, length - start)
        if fate == "keep":
            hit["blocks_kept"] += 1
            out += new.ljust(size, b"\0")[:size]
        elif fate == "drop":
            hit["bytes_dropped"] += len(new)
            out += old.ljust(size, b"\0")[:size]
        else:
            hit["blocks_garbled"] += 1
            out += bytes(chance.getrandbits(8) for _ in range(size))
    return bytes(out[:length])


def torn(durable, current, chance, hit):
    """A torn tail: the current length; the durable bytes, zeros where there were none, as the disk holds
    them; and the last block (by offset: where a log's writes end) that differs from them garbage."""
    hit["length"] = "current"
    kept = durable[:len(current)]
    out = bytearray(kept.ljust(len(current), b"\0"))
    unsynced = [start for start in range(0, len(current), BLOCK) if current[start:start + BLOCK] != kept[start:start + BLOCK]]
    # A file only cut shorter since its fsync differs in no block: it is its current bytes.
    for start in unsynced[:-1]:
        hit["bytes_dropped"] += len(current[start:start + BLOCK])
    if unsynced:
        last = unsynced[-1]
        size = min(BLOCK, len(current) - last)
        out[last:last + size] = bytes(chance.getrandbits(8) for _ in range(size))
        hit["blocks_garbled"] += 1
    return bytes(out)


class Freeze:
    """A cut at exactly one operation: armed with a file's basename, a kind ("write", "fsync") and n, it
    counts those operations from the arming and holds the nth one, not done, until the cut."""

    def __init__(self):
        self.guard = threading.Lock()
        self.armed = None
        self.seen = 0
        self.at = None
        self.cut = threading.Event()
        self.answered = threading.Event()

    def arm(self, file, op, nth):
        if op not in ("write", "fsync") or not isinstance(file, str) or not isinstance(nth, int) or nth < 1:
            raise ValueError("arm needs a file's basename, an op (write or fsync) and an nth from 1")
        with self.guard:
            if self.at:
                raise ValueError("frozen already: only a cut ends it")
            self.armed, self.seen = (file, op, nth), 0
        return {"armed": True, "file": file, "op": op, "nth": nth}

    def frozen(self):
        at = self.at
        return {"frozen": at is not None, "op": at and at["op"], "path": at and at["path"]}

    def reached(self, op, path):
        """Counts operation `op` on `path` (the mount's); True if it is the one to hold."""
        with self.guard:
            # Once cut, nothing freezes: the cut has seen the disk already.
            if self.armed is None or self.cut.is_set() or (os.path.basename(path), op) != self.armed[:2]:
                return False
            self.seen += 1
            if self.seen < self.armed[2]:
                return False
            self.armed, self.at = None, {"op": op, "path": path.lstrip("/")}
            return True

    def hold(self):
        """Blocks the operation until the cut has rebuilt the backing directory, then fails it."""
        self.cut.wait()
        self.answered.set()
        raise OSError(errno.EIO, "powerfs froze here and the power was cut")

    def thaw(self):
        """After the cut: where it froze (None if nowhere). The held operation is let go and has failed
        before this returns, so that the unmount comes after its EIO."""
        with self.guard:
            self.cut.set()
            at = self.at
        if at:
            self.answered.wait()
        return at


def serve(backing, mountpoint, state):
    import mfusepy as fuse

    # FUSE's foreground loop may leave the working directory: every path absolute from here on.
    backing, mountpoint, state = (os.path.realpath(path) for path in (backing, mountpoint, state))
    model = Model(backing, state)
    lock = threading.Lock()
    freeze = Freeze()

    class PowerFS(fuse.Operations):
        use_ns = True

        def getattr(self, path, fh=None):
            info = os.lstat(model.real(path))
            return {key: getattr(info, key) for key in (
                "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_ino")} | {
                "st_atime": info.st_atime_ns, "st_mtime": info.st_mtime_ns, "st_ctime": info.st_ctime_ns}

        def readdir(self, path, fh):
            # With use_ino every entry carries its inode: one without (0) is skipped by readdir(3).
            directory = model.real(path)
            entries = [(".", os.lstat(directory)), ("..", os.lstat(os.path.dirname(directory.rstrip("/")) or "/"))]
            entries += [(entry.name, entry.stat(follow_symlinks=False)) for entry in os.scandir(directory)]
            return [(name, {"st_ino": info.st_ino, "st_mode": info.st_mode}, 0) for name, info in entries]

        def readlink(self, path):
            return os.readlink(model.real(path))

        def access(self, path, amode):
            if not os.access(model.real(path), amode):
                raise fuse.FuseOSError(errno.EACCES)

        def statfs(self, path):
            info = os.statvfs(model.real(path))
            return {key: getattr(info, key) for key in (
                "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

        def open(self, path, flags):
            real = model.real(path)
            if flags & os.O_TRUNC:
                model.before_write(real)
            return os.open(real, flags & ~os.O_CREAT)

        def create(self, path, mode, fi=None):
            real = model.real(path)
            fd = os.open(real, os.O_RDWR | os.O_CREAT | os.O_EXCL, mode)
            model.created(real)
            return fd

        def read(self, path, size, offset, fh):
            return os.pread(fh, size, offset)

        def write(self, path, data, offset, fh):
            model.before_write(model.real(path))
            return os.pwrite(fh, data, offset)

        def truncate(self, path, length, fh=None):
            real = model.real(path)
            model.before_write(real)
            os.truncate(real if fh is None else fh, length)

        def flush(self, path, fh):
            return 0

        def release(self, path, fh):
            os.close(fh)

        def fsync(self, path, datasync, fh):
            model.synced_file(model.real(path))

        def fsyncdir(self, path, datasync, fh):
            model.synced_dir(model.real(path))

        def mkdir(self, path, mode):
            real = model.real(path)
            os.mkdir(real, mode)
            model.entry_changed(real)

        def rmdir(self, path):
            real = model.real(path)
            model.before_unlink(real)
            os.rmdir(real)

        def unlink(self, path):
            real = model.real(path)
            model.before_unlink(real)
            os.unlink(real)

        def rename(self, old, new, flags=0):
            real_old, real_new = model.real(old), model.real(new)
            if os.path.lexists(real_new):
                model.before_unlink(real_new)
            os.rename(real_old, real_new)
            model.renamed(real_old, real_new)

        def symlink(self, target, source):
            real = model.real(target)
            os.symlink(source, real)
            model.entry_changed(real)

        def link(self, target, source):
            real = model.real(target)
            os.link(model.real(source), real)
            model.entry_changed(real)

        def chmod(self, path, mode):
            os.chmod(model.real(path), mode)

        def chown(self, path, uid, gid):
            os.chown(model.real(path), uid, gid, follow_symlinks=False)

        def utimens(self, path, times=None):
            os.utime(model.real(path), ns=times, follow_symlinks=False) if times else os.utime(model.real(path))

    # One operation at a time, and none while a cut rebuilds the backing directory.
    def locked(operation):
        @functools.wraps(operation)
        def run(*args):
            with lock:
                return operation(*args)
        return run

    for name, operation in list(vars(PowerFS).items()):
        if callable(operation) and not name.startswith("_"):
            setattr(PowerFS, name, locked(operation))

    # The freeze holds its operation outside the lock, so that the cut can take it. The loop is one
    # thread (nothreads): while it is held no other operation runs, and the disk stays as it was.
    def freezable(op, operation):
        @functools.wraps(operation)
        def run(self, path, *args):
            if freeze.reached(op, path):
                freeze.hold()
            return operation(self, path, *args)
        return run

    PowerFS.write = freezable("write", PowerFS.write)
    PowerFS.fsync = freezable("fsync", PowerFS.fsync)

    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = os.path.join(state, "control.sock")
    if os.path.exists(address):
        os.unlink(address)
    control.bind(address)
    control.listen(4)

    def power_cut(asked):
        seed, garble_tail = asked.get("seed"), asked.get("garble_tail")
        # Checked before the cut starts: one that fails halfway leaves the backing directory half rebuilt.
        if not isinstance(seed, (int, type(None))) or not isinstance(garble_tail, (str, type(None))):
            raise ValueError("a cut's seed is a number or null, its garble_tail a name or null")
        with lock:
            report = model.cut(seed, garble_tail)
        report["frozen_at"] = freeze.thaw()
        with open(os.path.join(state, "report.json"), "w") as f:
            json.dump(report, f)
        return report

    def answer(asked):
        command = asked.get("command", "cut")
        if command == "arm":
            return freeze.arm(asked.get("file"), asked.get("op"), asked.get("nth"))
        if command == "frozen":
            return freeze.frozen()
        if command == "cut":
            return power_cut(asked)
        raise ValueError(f"no command {command!r}")

    def commands():
        # One connection at a time, each a line a request; the cut is the last.
        while True:
            connection, _ = control.accept()
            with connection:
                for line in connection.makefile():
                    try:
                        asked = json.loads(line)
                        reply = answer(asked)
                    except (ValueError, AttributeError) as error:
                        reply = {"error": str(error)}
                    connection.sendall((json.dumps(reply) + "\n").encode())
                    if "error" not in reply and asked.get("command", "cut") == "cut":
                        subprocess.run(["fusermount3", "-u", "-z", mountpoint], check=False)
                        # The lazy unmount ends the file system only once nothing holds it, and a mount
                        # namespace made while it was mounted (a test booting systemd under unshare, a
                        # sandbox) holds a copy for as long as it lives: powerfs waited there, idle, for
                        # minutes. Ending the process closes /dev/fuse, which ends the file system in
                        # every namespace at once.
                        os._exit(0)

    threading.Thread(target=commands, daemon=True).start()
    # use_ino: the backing directory's inode numbers, so that two names of one file (a hard link) are
    # one file to a program that compares them, as on the disk.
    fuse.FUSE(PowerFS(), mountpoint, foreground=True, nothreads=True, default_permissions=True, use_ino=True)


def ask(state, request):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.path.join(state, "control.sock"))
    connection.sendall((json.dumps(request) + "\n").encode())
    return json.loads(connection.makefile().readline())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    mount = commands.add_parser("mount")
    mount.add_argument("backing")
    mount.add_argument("mountpoint")
    mount.add_argument("--state", required=True)
    power = commands.add_parser("cut")
    power.add_argument("--state", required=True)
    power.add_argument("--seed", type=int)
    power.add_argument("--garble-tail", metavar="NAME")
    arm = commands.add_parser("arm")
    arm.add_argument("--state", required=True)
    arm.add_argument("--file", required=True, metavar="NAME")
    arm.add_argument("--op", required=True, choices=("write", "fsync"))
    arm.add_argument("--nth", required=True, type=int, metavar="K")
    frozen = commands.add_parser("frozen")
    frozen.add_argument("--state", required=True)
    args = parser.parse_args()
    if args.command == "mount":
        return serve(args.backing, args.mountpoint, args.state)
    if args.command == "cut":
        request = {"command": "cut", "seed": args.seed, "garble_tail": args.garble_tail}
    elif args.command == "arm":
        request = {"command": "arm", "file": args.file, "op": args.op, "nth": args.nth}
    else:
        request = {"command": "frozen"}
    reply = ask(args.state, request)
    print(json.dumps(reply))
    return 1 if "error" in reply else 0


if __name__ == "__main__":
    sys.exit(main())
