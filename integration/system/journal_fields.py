"""Reads `journalctl -o json SYSLOG_IDENTIFIER=splashd` output; checks SPLASHD_* fields."""
import json
import sys

entries = []
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        line = line.strip()
        if line.startswith("{"):
            entries.append(json.loads(line))
if not entries:
    sys.exit("no journal entry with SYSLOG_IDENTIFIER=splashd")
fields = sorted({k for e in entries for k in e if k.startswith("SPLASHD_")})
ops = sorted({str(e["SPLASHD_OP"]) for e in entries if "SPLASHD_OP" in e})
if not fields:
    sys.exit(f"{len(entries)} entries, none with a SPLASHD_* field")
if "start" not in ops:
    sys.exit(f"no entry with SPLASHD_OP=start (ops: {ops})")
print(f"{len(entries)} entries; fields {' '.join(fields)}; SPLASHD_OP values {' '.join(ops)}")
