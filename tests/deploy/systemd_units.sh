#!/usr/bin/env bash
# deploy/systemd's units are valid for this systemd: `systemd-analyze verify` on copies of lather.service,
# lather.socket and lather-socket.service whose ExecStart names the built lather-service instead of
# /usr/local/bin/lather-service (verify checks that the program exists), plus the settings the supervisor
# relies on: ExecReload sends SIGHUP to $MAINPID, KillMode=mixed, Restart=on-failure, TimeoutStopSec above
# the supervisor's 12 s drain bound, LimitNICE=20 (the niced start), the socket unit naming its service, no
# --fault-injection anywhere.
#
# Usage: systemd_units.sh SERVICE_BIN
# Exit 77 (CTest SKIP_RETURN_CODE) when systemd-analyze is not installed.
set -uo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 SERVICE_BIN" >&2; exit 64; }
service_bin=$(readlink -f "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
units=$here/../../deploy/systemd

# The ExecStart= command of unit file $1, its continuation lines joined.
exec_start() { awk '/^ExecStart=/ {on = 1} on {line = $0; more = line ~ /\\$/; sub(/\\$/, "", line); printf "%s ", line; if (!more) exit}' "$1"; }

fail() { local line="$*"; echo "systemd_units: FAIL: ${line//$'\n'/ }"; exit 1; }
ok() { echo "ok $*"; }

command -v systemd-analyze >/dev/null || { echo "systemd_units: SKIP: systemd-analyze is not installed"; exit 77; }
[[ -x $service_bin ]] || fail "$service_bin is missing or not executable"

work=$(mktemp -d /tmp/lather-systemd-units-XXXXXX)
trap 'rm -rf "$work"' EXIT
for unit in lather.service lather.socket lather-socket.service; do
  [[ -r $units/$unit ]] || fail "deploy/systemd/$unit is missing"
  sed "s|/usr/local/bin/lather-service|$service_bin|g" "$units/$unit" >"$work/$unit"
done
out=$(cd "$work" && systemd-analyze verify --man=no ./lather.service ./lather.socket ./lather-socket.service 2>&1) ||
  fail "systemd-analyze verify: $out"
[[ -z $out ]] || fail "systemd-analyze verify warns: $out"
ok "systemd-analyze verify: lather.service, lather.socket, lather-socket.service"

for unit in lather.service lather-socket.service; do
  f=$units/$unit
  grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$f" || fail "$unit: ExecReload is not SIGHUP to \$MAINPID"
  grep -qx 'KillMode=mixed' "$f" || fail "$unit: KillMode is not mixed"
  grep -qx 'Restart=on-failure' "$f" || fail "$unit: Restart is not on-failure"
  cmd=$(exec_start "$f")
  [[ $cmd == *--workers* ]] || fail "$unit: no --workers in ExecStart ($cmd)"
  stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s$/\1/p' "$f")
  [[ -n $stop && $stop -gt 12 ]] || fail "$unit: TimeoutStopSec '$stop' is not above the supervisor's 12 s drain bound"
  [[ $cmd != *--fault-injection* ]] || fail "$unit: --fault-injection in ExecStart"
  grep -qx 'LimitNICE=20' "$f" || fail "$unit: no LimitNICE=20 (workers could not take their priority back after a niced start)"
  ok "$unit: reload = SIGHUP to the supervisor, KillMode=mixed, Restart=on-failure, TimeoutStopSec=${stop}s"
done
[[ $(exec_start "$units/lather-socket.service") == *"--listen "* ]] && fail "lather-socket.service passes --listen (the socket comes from systemd)"
grep -qx 'Service=lather-socket.service' "$units/lather.socket" || fail "lather.socket does not name lather-socket.service"
grep -qx 'Accept=no' "$units/lather.socket" || fail "lather.socket: Accept is not no (one listening socket for the service)"
ok "lather.socket hands one listening socket to lather-socket.service, which does not bind its own"
echo "systemd_units: all checks passed"
