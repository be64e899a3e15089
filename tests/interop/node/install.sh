#!/usr/bin/env bash
# Installs the npm packages of the Node interop test (tests/interop/node) from the committed
# package-lock.json with `npm ci`, when node_modules is missing or older than the lock file.
# Called by scripts/bootstrap; safe to run again (does nothing when node_modules is current).
# Prints one line on failure and exits non-zero.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
stamp=$here/node_modules/.package-lock.json  # written by npm ci / npm install

if ! command -v npm >/dev/null 2>&1; then
  echo "tests/interop/node/install.sh: npm not found (install the Debian packages nodejs and npm)" >&2
  exit 1
fi
if [[ -f $stamp && ! $here/package-lock.json -nt $stamp && ! $here/package.json -nt $stamp \
      && -f $here/node_modules/soap/package.json && -f $here/node_modules/hdr-histogram-js/package.json ]]; then
  exit 0  # up to date
fi
log=$(mktemp /tmp/lather-npm-ci-XXXXXX.log)
if (cd "$here" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
  rm -f "$log"
  exit 0
fi
echo "tests/interop/node/install.sh: npm ci failed in $here: $(grep -m1 -i 'err' "$log" || tail -n1 "$log") (full log: $log)" >&2
exit 1
