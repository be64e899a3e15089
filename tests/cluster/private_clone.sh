#!/usr/bin/env bash
# tests/cluster/private_clone.sh BUILD_DIR: the checkout may live anywhere, also in a folder no other user
# may enter (what `mktemp -d` makes, and root's home). Clones this repository (with its uncommitted
# changes to tracked files) into a fresh 0700 folder and, from there, brings the farm up and down
# (`scripts/cluster up --nodes 1 --store postgresql`, one IncCounter through HAProxy, `down`). Anything the
# scripts run as another user (postgres) that reads the checkout by path fails here, as setup.sql once did.
# Exit 77 (skipped) when not root, git, HAProxy or PostgreSQL 15 is missing, or another cluster is up.
set -euo pipefail

BUILD=$(cd "${1:?usage: private_clone.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "not root (network namespaces, cgroups, the postgres user)"
command -v git >/dev/null || skip "git is not installed"
command -v haproxy >/dev/null || skip "haproxy is not installed (scripts/bootstrap)"
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || skip "PostgreSQL 15 is not installed (scripts/bootstrap)"
id postgres >/dev/null 2>&1 || skip "no postgres OS user"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "$ROOT is not a git checkout"
ip link show lc-br >/dev/null 2>&1 && skip "another cluster is up (bridge lc-br exists)"

PRIVATE=$(mktemp -d /tmp/lather-private-clone.XXXXXX)  # 0700, owned by root
CLUSTER_DIR=$(mktemp -d /tmp/lather-private-cluster.XXXXXX)
CLONE=$PRIVATE/lather
cleanup() {
  if [[ -x $CLONE/scripts/cluster ]]; then
    (cd "$CLONE" && LATHER_CLUSTER_DIR=$CLUSTER_DIR LATHER_BUILD_DIR=$BUILD scripts/cluster down >/dev/null 2>&1) || true
  fi
  rm -rf "$PRIVATE" "$CLUSTER_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[[ $(stat -c %a "$PRIVATE") == 700 ]] || fail "mktemp -d made $(stat -c %a "$PRIVATE"), not 700"
git clone --quiet --no-hardlinks "$ROOT" "$CLONE"
# The work tree as it is: uncommitted changes to tracked files go into the clone too.
if ! git -C "$ROOT" diff --quiet HEAD; then
  git -C "$ROOT" diff --binary HEAD | git -C "$CLONE" apply --whitespace=nowarn
fi
runuser -u postgres -- test -r "$CLONE/deploy/postgresql/setup.sql" &&
  fail "the postgres user can read $CLONE: the clone is not private, the test proves nothing"
echo "ok: a clone in $PRIVATE (mode 700) that the postgres user cannot read"

cd "$CLONE"
export LATHER_CLUSTER_DIR=$CLUSTER_DIR LATHER_BUILD_DIR=$BUILD
echo "== scripts/cluster up --nodes 1 --store postgresql (from the private clone)"
timeout 90 scripts/cluster up --nodes 1 --store postgresql || fail "scripts/cluster up failed from a private clone"
eval "$(scripts/cluster env)"
value=$(timeout 20 "$BUILD/client/lather-call" --url "$LATHER_CLUSTER_URL" inc-counter private-clone) ||
  fail "IncCounter through HAProxy: $value"
[[ $value == 1 ]] || fail "IncCounter on a new database answered '$value', not 1"
echo "ok: IncCounter through HAProxy on PostgreSQL answered 1"

echo "== scripts/cluster down"
timeout 60 scripts/cluster down || fail "scripts/cluster down failed"
ip link show lc-br >/dev/null 2>&1 && fail "the bridge lc-br is still there after down"
ip netns list | grep -q '^lather-' && fail "a lather-* namespace is still there after down"
echo "ok: down left no bridge or namespace"
echo "PASS"
