#!/bin/bash
# Runs as the first process of fresh mount, PID, UTS and network namespaces (see ./run) and
# becomes a private systemd there. Called with: REPO BIN_DIR.
#
# DANGER: a systemd booted on the machine's own file system empties /tmp. Every tmpfs below is
# mounted before systemd starts, inside this mount namespace only (unshare makes all mounts
# private), so nothing of the host's /tmp, /var/tmp, /run, /var/log, /var/lib or /var/cache
# is seen or changed.
set -euo pipefail
REPO=$1 BIN_DIR=$2
STAGE=/run/splashd-test

# 1. /run first: everything the test needs is copied onto it before /tmp is covered, because
#    the repository itself may live under /tmp (a CI clone).
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
mkdir -p "$STAGE" /run/systemd/system
cp "$REPO"/systemd/system/splashd@.service "$REPO"/systemd/system/splashd@.socket /run/systemd/system/
mkdir -p "$STAGE/user"
cp "$REPO"/systemd/user/splashd.service "$REPO"/systemd/user/splashd.socket "$STAGE/user/"
cp -r "$REPO"/tests/system/fixtures/. "$STAGE/"

# 2. The binaries, where the committed units expect them: /usr/local/bin, covered by a tmpfs
#    in this namespace only.
mount -t tmpfs -o mode=0755 tmpfs /usr/local/bin
cp -L "$BIN_DIR/splashd" "$BIN_DIR/splashctl" /usr/local/bin/
chmod 0755 /usr/local/bin/splashd /usr/local/bin/splashctl

# 3. Throwaway users, visible in this namespace only: copies of passwd/group bound over the
#    host's files.
for f in passwd group; do cp /etc/$f "$STAGE/$f"; done
cat >>"$STAGE/passwd" <<USERS
splashtest:x:61234:61234:splashd system test:/nonexistent:/usr/sbin/nologin
splashother:x:61235:61235:splashd system test, another user:/nonexistent:/usr/sbin/nologin
USERS
cat >>"$STAGE/group" <<GROUPS
splashtest:x:61234:
splashother:x:61235:
GROUPS
mount --bind "$STAGE/passwd" /etc/passwd
mount --bind "$STAGE/group" /etc/group

# 4. Everything systemd or journald might write: fresh tmpfs.
for d in /tmp /var/tmp /var/log /var/lib /var/cache; do
  mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$d"
done
chmod 1777 /tmp /var/tmp

# 5. The target systemd boots into: journald only (it comes with default dependencies); the
#    test starts splashd's units itself with systemctl.
cat >/run/systemd/system/splashd-test.target <<'UNIT'
[Unit]
Description=splashd system test
Wants=systemd-journald.service systemd-journald.socket
UNIT
# The test's own drop-ins (short watchdog, secrets) live in its fixtures.
mkdir -p /run/systemd/system/splashd@splashtest.service.d
cp "$STAGE"/dropin-test.conf /run/systemd/system/splashd@splashtest.service.d/10-test.conf

exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  /lib/systemd/systemd --system --unit=splashd-test.target --log-target=journal --log-level=info
