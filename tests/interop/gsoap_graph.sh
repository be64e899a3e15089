#!/usr/bin/env bash
# A stock gSOAP client in SOAP_XML_GRAPH mode (lather-gsoap-graph-client: gSOAP's generated proxy and
# runtime with id/ref support) sends EchoDataSamples with shared and cyclic samples, over SOAP 1.1 and
# 1.2, to lather-service (its own sample codec), and checks the echo it reads back keeps every sample's
# identity and fields; the request must carry gSOAP's id/ref spelling on `sample` elements (1.1: id="_3"
# + href="#_3", 1.2: SOAP-ENC:id="_3" + SOAP-ENC:ref="_3"), and so must the echo; a tree stays plain; the
# classic engine does the same. Then `--echo-codec gsoap` (gSOAP's generated readers, built WITH_NOIDREF)
# must refuse the same graph with a Client/Sender fault.
# Usage: gsoap_graph.sh PATH/TO/lather-service PATH/TO/lather-gsoap-graph-client
set -uo pipefail
service_bin=$1 client_bin=$2
work=$(mktemp -d /tmp/lather-gsoap-graph-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
start() {  # start NAME [FLAGS...]: a service on a free port; sets url
  local name=$1; shift
  "$service_bin" --listen 127.0.0.1:0 --store "sqlite:$work/$name.db" --port-file "$work/$name.port" "$@" \
    2>"$work/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do [[ -s "$work/$name.port" ]] && break; sleep 0.1; done
  if [[ ! -s "$work/$name.port" ]]; then echo "FAIL $name service wrote no port file within 10 s: $(tail -n3 "$work/$name.log")"; exit 1; fi
  url="http://127.0.0.1:$(cat "$work/$name.port")/soap"
}
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
has() {  # has NAME FILE TEXT...: FILE contains every TEXT
  local name=$1 file=$2; shift 2
  local t
  for t in "$@"; do
    if ! grep -qF -- "$t" "$file"; then fail "$name: no '$t' in $(head -c 600 "$file")"; return; fi
  done
  pass "$name"
}

start lather
for v in 1.1 1.2; do
  # gSOAP numbers ids by its pointer table (_3, _7, ...), the service from _1: the spelling is checked.
  flag=() id='<l:sample id="_' ref='<l:sample href="#_'
  if [[ $v == 1.2 ]]; then flag=(--soap12) id='<l:sample SOAP-ENC:id="_' ref='<l:sample SOAP-ENC:ref="_'; fi
  for graph in default small; do
    extra=("${flag[@]}"); [[ $graph == small ]] && extra+=(--small)
    out=$("$client_bin" "$url" "${extra[@]}" --dump "$work/req" --dump-response "$work/resp" 2>&1)
    rc=$?
    if [[ $rc -eq 0 && $out == PASS* ]]; then pass "gSOAP graph client, SOAP $v, $graph graph: $out"
    else fail "gSOAP graph client, SOAP $v, $graph graph (exit $rc): $out"; fi
    has "SOAP $v $graph: gSOAP's request defines and refers in its spelling ($id, $ref)" "$work/req" "$id" "$ref"
    has "SOAP $v $graph: the echo defines and refers in gSOAP's spelling ($id, $ref)" "$work/resp" "$id" "$ref"
  done
done
# A tree (nothing shared): gSOAP writes no id or reference, and the echo is plain document/literal.
for v in 1.1 1.2; do
  flag=(); [[ $v == 1.2 ]] && flag=(--soap12)
  out=$("$client_bin" "$url" "${flag[@]}" --tree --dump "$work/req" --dump-response "$work/resp" 2>&1); rc=$?
  if [[ $rc -eq 0 && $out == PASS* ]]; then pass "gSOAP graph client, SOAP $v, a tree: $out"
  else fail "gSOAP graph client, SOAP $v, a tree (exit $rc): $out"; fi
  if grep -qE '(id|ref)="' "$work/req" "$work/resp"; then fail "SOAP $v tree: an id or a reference in $(grep -hoE '<[^>]*(id|ref)="[^>]*>' "$work/req" "$work/resp" | head -n3)"
  elif grep -qF '<l:firstname>' "$work/resp"; then pass "SOAP $v tree: no id or reference in the request or the echo"
  else fail "SOAP $v tree: the echo holds no sample"; fi
done

# The classic engine (thread per connection) reads and writes the echo with the same codec.
start classic --engine classic
for v in 1.1 1.2; do
  flag=(); [[ $v == 1.2 ]] && flag=(--soap12)
  out=$("$client_bin" "$url" "${flag[@]}" 2>&1); rc=$?
  if [[ $rc -eq 0 && $out == PASS* ]]; then pass "gSOAP graph client, SOAP $v, classic engine: $out"
  else fail "gSOAP graph client, SOAP $v, classic engine (exit $rc): $out"; fi
done
out=$("$client_bin" "$url" --no-such-flag 2>&1); rc=$?
[[ $rc -eq 2 ]] && pass "an unknown flag exits 2" || fail "an unknown flag exits $rc: $out"

# gSOAP's generated readers (WITH_NOIDREF) cannot read a graph: a Client (1.1) / Sender (1.2) fault.
start gsoap --echo-codec gsoap
for v in 1.1 1.2; do
  flag=() want='HTTP 500, gSOAP error 1, fault SOAP-ENV:Client:'
  [[ $v == 1.2 ]] && flag=(--soap12) want='HTTP 400, gSOAP error 1, fault SOAP-ENV:Sender:'
  out=$("$client_bin" "$url" "${flag[@]}" 2>&1); rc=$?
  if [[ $rc -eq 1 && $out == *"$want"*"multi-reference graph"* ]]; then pass "--echo-codec gsoap refuses a SOAP $v graph: $out"
  else fail "--echo-codec gsoap, SOAP $v graph (exit $rc): expected '$want ... multi-reference graph', got: $out"; fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
