#!/bin/bash
# Runs as the first process of fresh mount, PID, UTS and network namespaces (see ./run) and
# becomes a private systemd there. Called with: REPO BIN_DIR.
#
# DANGER: a systemd booted on the machine's own file system empties /tmp. Every tmpfs below is
# mounted before systemd starts, inside this mount namespace only (unshare makes all mounts
# private), so nothing of the host's /tmp, /var/tmp, /run, /var/log, /var/lib, /var/cache or
# /home is seen or changed.
set -euo pipefail
REPO=$1 BIN_DIR=$2
# Only ever as PID 1 of a new PID namespace, i.e. started by ./run through unshare: run by hand on
# the host, it would mount over the host's directories and boot a second systemd there.
if [ $$ != 1 ]; then
  echo "boot.sh: refusing to run outside a new PID namespace (pid $$); use integration/system/run" >&2
  exit 1
fi
STAGE=/run/splashd-test

# 1. /run first: everything the test needs is copied onto it before /tmp is covered, because
#    the repository itself may live under /tmp (a CI clone).
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
mkdir -p "$STAGE" /run/systemd/system
cp "$REPO"/systemd/system/splashd@.service "$REPO"/systemd/system/splashd@.socket /run/systemd/system/
mkdir -p "$STAGE/user"
cp "$REPO"/systemd/user/splashd.service "$REPO"/systemd/user/splashd.socket "$REPO"/systemd/user/splashd-web.socket "$STAGE/user/"
cp -r "$REPO"/integration/system/fixtures/. "$STAGE/"
cp "$REPO"/integration/system/fake_backend.py "$REPO"/integration/system/rpc.py "$STAGE/"
cp -r "$REPO"/python/splashtest "$STAGE/"

# 2. The binaries, where the committed units expect them: /usr/local/bin, covered by a tmpfs
#    in this namespace only.
mount -t tmpfs -o mode=0755 tmpfs /usr/local/bin
cp -L "$BIN_DIR/splashd" "$BIN_DIR/splashctl" /usr/local/bin/
chmod 0755 /usr/local/bin/splashd /usr/local/bin/splashctl

# 3. Throwaway users (uids in the regular range, so journald keeps a journal per user), visible
#    in this namespace only: copies of passwd/group bound over the host's files.
for f in passwd group; do cp /etc/$f "$STAGE/$f"; done
cat >>"$STAGE/passwd" <<USERS
splashtest:x:59234:59234:splashd system test:/home/splashtest:/usr/sbin/nologin
splashother:x:59235:59235:splashd system test, another user:/nonexistent:/usr/sbin/nologin
USERS
cat >>"$STAGE/group" <<GROUPS
splashtest:x:59234:
splashother:x:59235:
GROUPS
mount --bind "$STAGE/passwd" /etc/passwd
mount --bind "$STAGE/group" /etc/group

# 4. Everything systemd or journald might write, and /home: fresh tmpfs.
for d in /tmp /var/tmp /var/log /var/lib /var/cache /home; do
  mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$d"
done
chmod 1777 /tmp /var/tmp
# A persistent journal (on that tmpfs), so that journald keeps a journal per user and
# splashtest can read its own with `journalctl --user`, as docs/operations.md says.
mkdir -p /var/log/journal
# splashtest's home, with the credentials file the user unit reads (EnvironmentFile=-%E/splashd/env).
install -d -o 59234 -g 59234 -m 0700 /home/splashtest /home/splashtest/.config /home/splashtest/.config/splashd
install -o 59234 -g 59234 -m 0600 "$STAGE/secrets.env" /home/splashtest/.config/splashd/env

# 5. The target systemd boots into: journald only (it comes with default dependencies); the
#    test starts splashd's units itself with systemctl.
cat >/run/systemd/system/splashd-test.target <<'UNIT'
[Unit]
Description=splashd system test
Wants=systemd-journald.service systemd-journald.socket systemd-journal-flush.service fake-backend.service
UNIT
# The Supabase stand-in splashd signs in to (SPLASHD_BACKEND_URL in fixtures/secrets.env).
cat >/run/systemd/system/fake-backend.service <<'UNIT'
[Unit]
Description=fake Supabase backend for the splashd system test
[Service]
User=nobody
ExecStart=/usr/bin/python3 /run/splashd-test/fake_backend.py 8765
UNIT
# The user units, for a user manager run as splashtest. The stock user@.service needs D-Bus and
# logind (through user-runtime-dir@.service), which this namespace does not run, so an instance
# file of the same name takes its place: the same `systemd --user`, in the same slice and cgroup
# (which is how journald tells user units apart, for `journalctl --user -u splashd`).
mkdir -p /run/systemd/user
cp "$STAGE"/user/splashd.service "$STAGE"/user/splashd.socket "$STAGE"/user/splashd-web.socket /run/systemd/user/
cat >/run/systemd/system/user@59234.service <<'UNIT'
[Unit]
Description=User Manager for UID 59234 (splashd system test)
[Service]
Type=notify
User=59234
Slice=user-59234.slice
ExecStart=/lib/systemd/systemd --user
Environment=XDG_RUNTIME_DIR=/run/user/59234
RuntimeDirectory=user/59234
RuntimeDirectoryMode=0700
Delegate=pids memory cpu
KillMode=mixed
UNIT
# The test's own drop-ins (short watchdog, secrets) live in its fixtures.
mkdir -p /run/systemd/system/splashd@splashtest.service.d
cp "$STAGE"/dropin-test.conf /run/systemd/system/splashd@splashtest.service.d/10-test.conf

exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  /lib/systemd/systemd --system --unit=splashd-test.target --log-target=journal --log-level=info
