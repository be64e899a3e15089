#!/usr/bin/env bash
# tests/cluster/cluster_smoke.sh BUILD_DIR: the scale-out farm (scripts/cluster, docs/scale-out.md) from
# real parts: `up --nodes 2`; 200 calls through HAProxy reach every node (each node's /metrics request
# counter) and add up to 200; an IncCounter count through HAProxy is exact; calls from the client namespace
# cross its veth; shape / unshape put and remove tbf on both ends; disable-node takes a node out of rotation;
# `down` leaves no process, namespace, cgroup, link (so no qdisc) or folder behind. Exit 77 (skipped) when
# not root or HAProxy / PostgreSQL 15 is missing, or another cluster is up.
set -euo pipefail

BUILD=$(cd "${1:?usage: cluster_smoke.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=$ROOT/scripts/cluster
STRESS=$BUILD/stress/lather-stress
CALL=$BUILD/client/lather-call

skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "not root (network namespaces, cgroups)"
command -v haproxy >/dev/null || skip "haproxy is not installed (scripts/bootstrap)"
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || skip "PostgreSQL 15 is not installed (scripts/bootstrap)"
if ! command -v curl >/dev/null || ! command -v ip >/dev/null; then skip "curl or ip is missing"; fi
id postgres >/dev/null 2>&1 || skip "no postgres OS user"
ip link show lc-br >/dev/null 2>&1 && skip "another cluster is up (bridge lc-br exists)"
for b in "$STRESS" "$CALL" "$BUILD/service/lather-service"; do [[ -x $b ]] || { echo "FAIL: no $b"; exit 1; }; done

export LATHER_BUILD_DIR=$BUILD
LATHER_CLUSTER_DIR=$(mktemp -d /tmp/lather-cluster-smoke.XXXXXX)
export LATHER_CLUSTER_DIR
WORK=$(mktemp -d /tmp/lather-cluster-smoke-work.XXXXXX)
cleanup() {
  "$CLUSTER" down >/dev/null 2>&1 || true
  rm -rf "$WORK" "$LATHER_CLUSTER_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failures=0
check() { # DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

echo "== scripts/cluster up --nodes 2"
timeout 90 "$CLUSTER" up --nodes 2
eval "$("$CLUSTER" env)"
read -r -a metrics <<<"$LATHER_CLUSTER_NODE_METRICS"

# The SOAP requests node I has answered (every operation and outcome).
requests() { curl -s --max-time 5 "$1" | awk '/^lather_requests_total\{/ {s += $2} END {printf "%d\n", s}'; }

declare -a before
for i in "${!metrics[@]}"; do before[i]=$(requests "${metrics[i]}"); done

echo "== 200 Increment calls through HAProxy ($LATHER_CLUSTER_URL)"
timeout 60 "$STRESS" "$LATHER_CLUSTER_URL" -n 200 -c 4 --no-probe --json "$WORK/increment.json" >"$WORK/increment.txt" 2>&1 ||
  { cat "$WORK/increment.txt"; echo "FAIL: lather-stress"; exit 1; }
ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calls"]["ok"])' "$WORK/increment.json")
failed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calls"]["failed"])' "$WORK/increment.json")
check "200 calls ok, 0 failed (ok $ok, failed $failed)" test "$ok" -eq 200 -a "$failed" -eq 0
total=0
for i in "${!metrics[@]}"; do
  n=$(($(requests "${metrics[i]}") - before[i]))
  total=$((total + n))
  check "node $((i + 1)) answered some of them ($n)" test "$n" -gt 0
done
check "the nodes answered 200 in all ($total): none lost, none doubled" test "$total" -eq 200

echo "== IncCounter through HAProxy"
counter=smoke-$$-$RANDOM
timeout 60 "$STRESS" "$LATHER_CLUSTER_URL" --op inc-counter --counter "$counter" -n 300 -c 6 --no-probe \
  --json "$WORK/inc.json" >"$WORK/inc.txt" 2>&1 || { cat "$WORK/inc.txt"; echo "FAIL: lather-stress inc-counter"; exit 1; }
ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calls"]["ok"])' "$WORK/inc.json")
value=$("$CALL" --url "$LATHER_CLUSTER_URL" get-counter "$counter")
check "300 IncCounter acknowledged ($ok) and the counter says $value" test "$ok" -eq 300 -a "$value" -eq 300
# one more, idempotent by wsa:MessageID, sent twice: counts once
id=urn:uuid:smoke-$$-$RANDOM
a=$("$CALL" --url "$LATHER_CLUSTER_URL" --message-id "$id" inc-counter "$counter")
b=$("$CALL" --url "$LATHER_CLUSTER_URL" --message-id "$id" inc-counter "$counter")
value=$("$CALL" --url "$LATHER_CLUSTER_URL" get-counter "$counter")
check "an IncCounter sent twice with one wsa:MessageID counts once ($a, $b, counter $value)" \
  test "$a" -eq 301 -a "$b" -eq 301 -a "$value" -eq 301

echo "== the client namespace, its shaped link, a node out of rotation"
# Calls from lather-client cross its veth lc-c: its byte counters grow by at least the request bytes.
rx0=$(cat /sys/class/net/lc-c/statistics/rx_bytes)
timeout 60 "$CLUSTER" client "$STRESS" "$LATHER_CLUSTER_URL" -n 100 -c 2 --no-probe --json "$WORK/client.json" \
  >"$WORK/client.txt" 2>&1 || { cat "$WORK/client.txt"; echo "FAIL: lather-stress in lather-client"; exit 1; }
ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calls"]["ok"])' "$WORK/client.json")
rx=$(($(cat /sys/class/net/lc-c/statistics/rx_bytes) - rx0))
check "100 calls from lather-client ($ok ok) crossed lc-c ($rx bytes from the client)" test "$ok" -eq 100 -a "$rx" -gt 30000
"$CLUSTER" shape 20mbit
check "shape: tbf on lc-c and on eth0 in lather-client" test "$(tc qdisc show dev lc-c | grep -c 'tbf.*rate 20Mbit')" -eq 1 -a \
  "$(ip netns exec lather-client tc qdisc show dev eth0 | grep -c 'tbf.*rate 20Mbit')" -eq 1
"$CLUSTER" unshape
check "unshape: no tbf left" test -z "$(tc qdisc show dev lc-c | grep tbf; ip netns exec lather-client tc qdisc show dev eth0 | grep tbf)"
"$CLUSTER" disable-node 2
before2=$(requests "${metrics[1]}")
timeout 60 "$STRESS" "$LATHER_CLUSTER_URL" -n 100 -c 2 --no-probe >/dev/null 2>&1 || true
check "disable-node 2: node 2 gets no calls ($(($(requests "${metrics[1]}") - before2)))" \
  test "$(($(requests "${metrics[1]}") - before2))" -eq 0
"$CLUSTER" enable-node 2
"$CLUSTER" shape 50mbit  # left in place for down to remove

"$CLUSTER" status

echo "== scripts/cluster down"
pids=$(cat "$LATHER_CLUSTER_DIR"/run/*.pid | awk '{print $1}')
pg_pids=$(cat /sys/fs/cgroup/*/lather-cluster/postgres/cgroup.procs /sys/fs/cgroup/lather-cluster/postgres/cgroup.procs \
  2>/dev/null | sort -u || true)
"$CLUSTER" down
# A process that has ended but not yet been reaped by its parent (a zombie: state Z) is gone; give the
# others 3 s.
alive() { [[ -e /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
for _ in $(seq 30); do
  left=""
  # A process may end between alive and the read of its cmdline: that read failing is not a failure here.
  for p in $pids $pg_pids; do
    alive "$p" && left+=" $p($( (tr '\0' ' ' <"/proc/$p/cmdline") 2>/dev/null | cut -c1-60 || true))"
  done
  [[ -z $left ]] && break
  sleep 0.1
done
check "no process of the cluster is left (pids $(echo "$pids" "$pg_pids" | tr '\n' ' '))" test -z "$left"
[[ -z $left ]] || echo "  left: $left"
check "no process mentions $LATHER_CLUSTER_DIR" test -z "$(pgrep -f -a -- "$LATHER_CLUSTER_DIR" || true)"
check "no namespace lather-node-* or lather-client" test -z "$(ip netns list | grep -E '^lather-(node-|client)' || true)"
check "no cgroup lather-cluster" test -z "$(find /sys/fs/cgroup -maxdepth 3 -name lather-cluster 2>/dev/null)"
check "no bridge or veth (lc-br, lc-n*, lc-c), so no qdisc on them" \
  test -z "$(ip -o link show | awk -F': ' '{print $2}' | grep -E '^(lc-br|lc-n|lc-c)' || true)"
check "the cluster folder is gone" test ! -e "$LATHER_CLUSTER_DIR"

if ((failures)); then echo "FAILED: $failures check(s)"; exit 1; fi
echo "PASS"
