#!/usr/bin/env bash
# Interop test: drive a SOAP server written with a different stack (Python Spyne, tests/interop/
# spyne_server.py: wsgiref, HTTP/1.0, connection closed after every response) with our CLI tools,
# lather-call and lather-stress, and check that they get the contract's answers.
#
# Usage: other_server.sh BUILD_DIR
#   BUILD_DIR holds client/lather-call and stress/lather-stress (e.g. build).
#   Needs Debian's /usr/bin/python3 with python3-spyne (apt-get install -y python3-spyne).
#
# Prints PASS/FAIL per check, then "N passed, M failed"; exits non-zero if anything failed.
set -u

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 64
fi
build_dir=$1
call_bin=$build_dir/client/lather-call
stress_bin=$build_dir/stress/lather-stress
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
server_py=$here/spyne_server.py

for bin in "$call_bin" "$stress_bin"; do
  if [[ ! -x $bin ]]; then echo "FAIL: $bin is missing or not executable" >&2; exit 2; fi
done
if ! "$python" -c 'import spyne' 2>/dev/null; then
  echo "FAIL: $python cannot import spyne (apt-get install -y python3-spyne)" >&2
  exit 2
fi

readonly STARTUP_TIMEOUT_S=15
readonly STOP_TIMEOUT_S=10
readonly TOOL_TIMEOUT_S=120

work=$(mktemp -d /tmp/lather-spyne-XXXXXX)
server_pid=

stop_server() {  # SIGTERM, bounded wait, then SIGKILL; sets server_status
  server_status=
  [[ -n $server_pid ]] || return 0
  kill -TERM "$server_pid" 2>/dev/null
  local i
  for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$server_pid" 2>/dev/null; then
    echo "spyne_server.py (pid $server_pid) ignored SIGTERM for ${STOP_TIMEOUT_S}s; sending SIGKILL" >&2
    kill -KILL "$server_pid" 2>/dev/null
  fi
  wait "$server_pid" 2>/dev/null
  server_status=$?
  server_pid=
}

cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$python" "$server_py" --port 0 --port-file "$work/port" 2>"$work/server.log" &
server_pid=$!

port=
for ((i = 0; i < STARTUP_TIMEOUT_S * 10; i++)); do
  if [[ -s $work/port ]]; then port=$(tr -d '[:space:]' <"$work/port"); break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  echo "FAIL: spyne_server.py did not write its port within ${STARTUP_TIMEOUT_S}s; its log:" >&2
  sed 's/^/  | /' "$work/server.log" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# Spyne's WsgiApplication answers SOAP POSTs on any path; /soap mirrors lather-service.
url="http://127.0.0.1:$port/soap"
echo "spyne_server.py (pid $server_pid) at $url"

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() {  # fail NAME DETAIL [FILE-TO-SHOW]
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  if [[ $# -ge 3 && -s $3 ]]; then tail -n 40 "$3" | sed 's/^/  | /'; fi
}

out=$work/out
run() {  # run TOOL ARGS...: stdout+stderr to $out, exit status to $rc
  timeout "$TOOL_TIMEOUT_S" "$@" >"$out" 2>&1
  rc=$?
}

# check_call NAME EXPECTED-STDOUT ARGS...: lather-call exits 0 and prints exactly EXPECTED
check_call() {
  local name=$1 expected=$2
  shift 2
  run "$call_bin" --url "$url" "$@"
  local got
  got=$(cat "$out")
  if [[ $rc -eq 0 && $got == "$expected" ]]; then pass "$name"
  else fail "$name" "exit $rc, expected output '$expected', got '$got'"; fi
}

# json_calls_ok FILE: prints calls.ok of a lather-stress/2 report, nothing if the schema is wrong
json_calls_ok() {
  "$python" - "$1" <<'EOF' 2>/dev/null
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    report = json.load(f)
if report.get("schema") == "lather-stress/2":
    print(report["calls"]["ok"])
EOF
}

# --- a. lather-call ----------------------------------------------------------------------------
check_call "lather-call increment 41 prints 42" "42" increment 41
check_call "lather-call hello prints Hello World" "Hello World" hello
check_call "lather-call inc-counter spy prints 1" "1" inc-counter spy
check_call "lather-call inc-counter spy again prints 2" "2" inc-counter spy
check_call "lather-call get-counter spy prints 2" "2" get-counter spy
check_call "lather-call get-counter of an unknown name prints 0" "0" get-counter never-incremented

run "$call_bin" --url "$url" increment 2147483647
if [[ $rc -eq 2 ]] && grep -q '^fault: ' "$out"; then
  pass "lather-call increment 2147483647 exits 2 with 'fault: ...' ($(grep -m1 '^fault: ' "$out"))"
else
  fail "lather-call increment 2147483647 exits 2 with 'fault: ...'" "exit $rc" "$out"
fi

# --- b. lather-stress, --op increment and a custom --body with --expect --------------------------
json=$work/increment.json
run "$stress_bin" "$url" --op increment -n 300 -c 2 -t 1 --max-errors 0 --json "$json"
ok=$([[ -s $json ]] && json_calls_ok "$json")
if [[ $rc -eq 0 && $ok == 300 ]]; then
  pass "lather-stress --op increment -n 300 -c 2: exit 0, JSON calls.ok = 300"
else
  fail "lather-stress --op increment -n 300 -c 2" "exit $rc, JSON calls.ok = '${ok:-}' (want 300)" "$out"
fi

body=$work/increment-body.xml
cat >"$body" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:l="urn:lather:v1">
  <soap:Body><l:Increment><l:value>${n}</l:value></l:Increment></soap:Body>
</soap:Envelope>
EOF
run "$stress_bin" "$url" --body "$body" -H 'SOAPAction: "urn:lather:v1#Increment"' \
  --expect "//*[local-name()='result'] = \$n1" -n 200 --max-errors 0 -q
if [[ $rc -eq 0 ]]; then pass "lather-stress --body Increment(\${n}) --expect result = \$n1 -n 200: exit 0"
else fail "lather-stress --body Increment(\${n}) --expect result = \$n1 -n 200" "exit $rc (want 0)" "$out"; fi

# Control: the same run with an expectation the server cannot meet must fail, so --expect is applied.
run "$stress_bin" "$url" --body "$body" -H 'SOAPAction: "urn:lather:v1#Increment"' \
  --expect "//*[local-name()='result'] = \$n" -n 20 --max-errors 0 -q
if [[ $rc -eq 1 ]]; then pass "control: lather-stress --expect result = \$n (wrong) exits 1"
else fail "control: lather-stress --expect result = \$n (wrong) exits 1" "exit $rc (want 1)" "$out"; fi

# --- c. lather-stress --op hello ------------------------------------------------------------------
run "$stress_bin" "$url" --op hello -n 100 --max-errors 0 -q
if [[ $rc -eq 0 ]]; then pass "lather-stress --op hello -n 100: exit 0"
else fail "lather-stress --op hello -n 100" "exit $rc (want 0)" "$out"; fi

# --- the server stops cleanly on SIGTERM ----------------------------------------------------------
stop_server
if [[ $server_status -eq 0 ]]; then pass "spyne_server.py exits 0 on SIGTERM"
else fail "spyne_server.py exits 0 on SIGTERM" "exit status $server_status" "$work/server.log"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
