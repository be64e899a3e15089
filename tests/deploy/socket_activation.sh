#!/usr/bin/env bash
# Socket activation (deploy/systemd/lather.socket, lather-socket.service): lather-service started by Debian's
# systemd-socket-activate on a listening socket it did not bind (handed over as fd 3 with LISTEN_FDS and
# LISTEN_PID, as systemd does), once as one process and once with --workers 2. For each: the first
# Increment starts the service (systemd-socket-activate execs it on the first connection) and is answered;
# more calls are answered; the log names the inherited socket's port, never the --listen decoy given on
# the command line; nothing listens on the decoy; fd 3 of the service (and, with --workers, the listening
# descriptor of every worker) is the very socket systemd-socket-activate bound; SIGTERM stops it cleanly.
#
# Usage: socket_activation.sh SERVICE_BIN CALL_BIN
# Prints "ok ..." per check; on the first mismatch one line "socket_activation: FAIL: ..." and exit 1.
# Exit 77 (CTest SKIP_RETURN_CODE) when systemd-socket-activate (Debian's systemd package) or python3 is missing.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 SERVICE_BIN CALL_BIN" >&2
  exit 64
fi
service_bin=$1
call_bin=$2

fail() { local line="$*"; echo "socket_activation: FAIL: ${line//$'\n'/ }"; exit 1; }
ok() { echo "ok $*"; }

for tool in systemd-socket-activate python3; do
  command -v "$tool" >/dev/null || { echo "socket_activation: SKIP: $tool is not installed (scripts/bootstrap)"; exit 77; }
done
for bin in "$service_bin" "$call_bin"; do
  [[ -x $bin ]] || fail "$bin is missing or not executable"
done

work=$(mktemp -d /tmp/lather-socket-activation-XXXXXX)
pid=""
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The inode of the socket listening on 127.0.0.1:PORT (state 0A in /proc/net/tcp), empty if none.
listener_inode() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p="0100007F:$hex" '$2 == p && $4 == "0A" { print $10; exit }' /proc/net/tcp
}

# Waits up to 10 s for a line matching REGEX in FILE.
wait_log() {
  for _ in $(seq 100); do
    grep -Eq -- "$2" "$1" && return 0
    sleep 0.1
  done
  return 1
}

run_mode() {
  local mode=$1; shift
  local port decoy log inode
  port=$(free_port)
  decoy=$(free_port)
  log=$work/$mode.log
  systemd-socket-activate -l "127.0.0.1:$port" "$service_bin" --store "sqlite:$work/$mode.db" \
      --listen "127.0.0.1:$decoy" "$@" 2>"$log" &
  pid=$!
  wait_log "$log" "Listening on 127.0.0.1:$port as 3" || fail "$mode: systemd-socket-activate did not listen: $(cat "$log")"
  inode=$(listener_inode "$port")
  [[ -n $inode ]] || fail "$mode: no listening socket on port $port"
  local exe
  exe=$(readlink "/proc/$pid/exe")
  [[ $exe == */systemd-socket-activate ]] || fail "$mode: the service started before any connection ($exe)"
  ok "$mode: systemd-socket-activate holds 127.0.0.1:$port (socket inode $inode); the service is not started yet"

  local answer
  answer=$("$call_bin" --url "http://127.0.0.1:$port/soap" --timeout 20 increment 41 2>&1) ||
    fail "$mode: the first Increment failed: $answer; log: $(cat "$log")"
  [[ $answer == 42 ]] || fail "$mode: Increment 41 answered '$answer', not 42"
  ok "$mode: the first connection started the service and Increment 41 answered 42"
  for n in 1 2 3 4 5; do
    answer=$("$call_bin" --url "http://127.0.0.1:$port/soap" increment "$n" 2>&1) || fail "$mode: Increment $n failed: $answer"
    [[ $answer == $((n + 1)) ]] || fail "$mode: Increment $n answered '$answer'"
  done
  ok "$mode: 5 more Increments answered"

  exe=$(readlink "/proc/$pid/exe")
  [[ $exe == "$(readlink -f "$service_bin")" ]] || fail "$mode: PID $pid runs $exe, not the service"
  [[ -z $(listener_inode "$decoy") ]] || fail "$mode: something listens on the --listen decoy port $decoy"
  [[ $(listener_inode "$port") == "$inode" ]] || fail "$mode: the socket on $port changed (the service bound its own)"
  [[ $(readlink "/proc/$pid/fd/3") == "socket:[$inode]" ]] || fail "$mode: fd 3 of the service is not the inherited socket"
  ok "$mode: the service (PID $pid, execed in place of systemd-socket-activate) serves on fd 3 = socket $inode; nothing on the decoy $decoy"

  if [[ $mode == single ]]; then
    grep -q "lather-service: listening on http://127.0.0.1:$port/soap" "$log" ||
      fail "$mode: the log does not say it listens on the inherited port $port: $(cat "$log")"
    ok "$mode: the log says: $(grep -o "listening on http://127.0.0.1:$port/soap.*" "$log")"
  else
    wait_log "$log" "serving on http://127.0.0.1:$port/soap with 2 workers" ||
      fail "$mode: the supervisor did not serve on the inherited port: $(cat "$log")"
    grep -q "supervising 2 workers of .* on 127.0.0.1:$port" "$log" || fail "$mode: the supervisor names another address"
    [[ $(grep -c "\[worker [01]\]: listening on http://127.0.0.1:$port/soap" "$log") -ge 2 ]] ||
      fail "$mode: not both workers listen on the inherited port: $(cat "$log")"
    local children=() child fd
    read -r -a children < <(cat /proc/"$pid"/task/*/children)
    [[ ${#children[@]} -eq 2 ]] || fail "$mode: the supervisor has ${#children[@]} children, not 2"
    for child in "${children[@]}"; do
      fd=$(tr '\0' '\n' <"/proc/$child/environ" | sed -n 's/^LATHER_LISTEN_FD=//p')
      [[ -n $fd && $(readlink "/proc/$child/fd/$fd") == "socket:[$inode]" ]] ||
        fail "$mode: worker $child does not accept from the inherited socket (fd '$fd')"
      if tr '\0' '\n' <"/proc/$child/environ" | grep -q '^LISTEN_\(FDS\|PID\)='; then
        fail "$mode: worker $child was given systemd's LISTEN_FDS/LISTEN_PID"
      fi
    done
    ok "$mode: the supervisor and both workers (${children[*]}) use the inherited socket $inode; the log says: $(grep -o "serving on http://127.0.0.1:$port/soap with 2 workers" "$log")"
  fi

  kill -TERM "$pid"
  local code=0
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "$mode: still running 15 s after SIGTERM"
  wait "$pid"; code=$?
  pid=""
  [[ $code -eq 0 ]] || fail "$mode: exit status $code after SIGTERM: $(tail -5 "$log")"
  grep -q "lather-service: stopped" "$log" || fail "$mode: no 'stopped' line: $(tail -5 "$log")"
  ok "$mode: stopped on SIGTERM with status 0"
}

run_mode single
run_mode workers --workers 2
echo "socket_activation: all checks passed"
