#!/usr/bin/env python3
"""powerfs: a FUSE file system for power-loss tests. It passes everything through to a real backing
directory (which always holds what a program sees, as the page cache does) and keeps, beside it, what
the disk would hold: a file's bytes as of its last fsync, a directory's entries as of its last fsync of
the directory. On command it "cuts the power": it rebuilds the backing directory from what was durable
and unmounts; the test mounts it anew over what survived.

    powerfs.py mount BACKING MOUNTPOINT --state DIR     (foreground; DIR: outside BACKING, same file system)
    powerfs.py cut --state DIR [--seed N]               (the mount's owner must have ended its writers)

A cut without a seed drops everything POSIX lets go: a file's bytes written since its last fsync
(fdatasync counts), and a directory's creates, renames and unlinks since its last fsync. With a seed it
is SQLite's crash VFS: each unsynced 4 KiB block of a file is kept, dropped (its durable bytes back) or
garbled at random, a file's length is its durable or its current one, and each directory changed since
its last fsync keeps its old entries or takes its new ones. The cut writes what it hit to
DIR/report.json.

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

    def cut(self, seed=None):
        chance = random.Random(seed) if seed is not None else None
        report = {"seed": seed, "files_rolled_back": 0, "bytes_dropped": 0, "blocks_garbled": 0, "blocks_kept": 0,
                  "dirs_rolled_back": 0, "dirs_kept_new": 0}
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
        self.materialize(os.lstat(self.backing).st_ino, rebuilt, listings, live, chance, report, {})
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

    def materialize(self, inode, target, listings, live, chance, report, made):
        """Writes the durable tree of directory `inode` under `target`; `made` maps each inode written so
        far to its first path: a file two durable listings name (hard links) is one file again."""
        for name, (child, kind, link_target) in sorted(listings.get(inode, {}).items()):
            path = os.path.join(target, name)
            if kind == "dir":
                os.mkdir(path)
                if child not in made:
                    made[child] = path
                    self.materialize(child, path, listings, live, chance, report, made)
            elif kind == "link":
                os.symlink(link_target, path)
            elif child in made:
                os.link(made[child], path)
            else:
                made[child] = path
                self.file(child, path, live, chance, report)

    def file(self, inode, path, live, chance, report):
        current_path = live.get(inode) or self.kept.get(inode)
        current = open(current_path, "rb").read() if current_path else b""
        if inode not in self.durable_copy:
            durable = current
        else:
            copy = self.durable_copy[inode]
            durable = open(copy, "rb").read() if copy else b""
        if chance is None or durable == current:
            if durable != current:
                report["files_rolled_back"] += 1
                report["bytes_dropped"] += max(len(current) - len(durable), 0) + sum(
                    1 for a, b in zip(current, durable) if a != b)
            data = durable
        else:
            report["files_rolled_back"] += 1
            length = chance.choice([len(durable), len(current)])
            out = bytearray()
            for start in range(0, length, BLOCK):
                new, old = current[start:start + BLOCK], durable[start:start + BLOCK]
                if new == old:
                    out += new
                    continue
                fate = chance.choice(["keep", "drop", "garble"])
                size = min(BLOCK, length - start)
                if fate == "keep":
                    report["blocks_kept"] += 1
                    out += new.ljust(size, b"\0")[:size]
                elif fate == "drop":
                    report["bytes_dropped"] += len(new)
                    out += old.ljust(size, b"\0")[:size]
                else:
                    report["blocks_garbled"] += 1
                    out += bytes(chance.getrandbits(8) for _ in range(size))
            data = bytes(out[:length])
        with open(path, "wb") as f:
            f.write(data)
        if current_path:
            shutil.copymode(current_path, path)


def serve(backing, mountpoint, state):
    import mfusepy as fuse

    # FUSE's foreground loop may leave the working directory: every path absolute from here on.
    backing, mountpoint, state = (os.path.realpath(path) for path in (backing, mountpoint, state))
    model = Model(backing, state)
    lock = threading.Lock()

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

    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = os.path.join(state, "control.sock")
    if os.path.exists(address):
        os.unlink(address)
    control.bind(address)
    control.listen(1)

    def commands():
        connection, _ = control.accept()
        asked = json.loads(connection.makefile().readline())
        with lock:
            report = model.cut(asked.get("seed"))
        with open(os.path.join(state, "report.json"), "w") as f:
            json.dump(report, f)
        connection.sendall((json.dumps(report) + "\n").encode())
        connection.close()
        subprocess.run(["fusermount3", "-u", "-z", mountpoint], check=False)

    threading.Thread(target=commands, daemon=True).start()
    # use_ino: the backing directory's inode numbers, so that two names of one file (a hard link) are
    # one file to a program that compares them, as on the disk.
    fuse.FUSE(PowerFS(), mountpoint, foreground=True, nothreads=True, default_permissions=True, use_ino=True)


def cut(state, seed):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.path.join(state, "control.sock"))
    connection.sendall((json.dumps({"seed": seed}) + "\n").encode())
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
    args = parser.parse_args()
    if args.command == "mount":
        serve(args.backing, args.mountpoint, args.state)
    else:
        print(json.dumps(cut(args.state, args.seed)))


if __name__ == "__main__":
    sys.exit(main())
