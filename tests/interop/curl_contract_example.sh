#!/usr/bin/env bash
# The CONTRACT.md example, sent with curl exactly as a user would, over SOAP 1.1 and 1.2.
# Usage: curl_contract_example.sh PATH/TO/lather-service
set -euo pipefail
service_bin=$1
work=$(mktemp -d /tmp/lather-curl-XXXXXX)
"$service_bin" --listen 127.0.0.1:0 --store "sqlite:$work/c.db" --port-file "$work/port" 2>"$work/log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/soap"
passed=0 failed=0
check() {  # check NAME EXPECTED ACTUAL
  if [[ "$3" == *"$2"* ]]; then passed=$((passed + 1)); echo "PASS $1"; else failed=$((failed + 1)); echo "FAIL $1: got $3"; fi
}

envelope11='<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:l="urn:lather:v1">
  <soap:Body><l:Increment><l:value>41</l:value></l:Increment></soap:Body>
</soap:Envelope>'
out=$(curl -s -w ' HTTP%{http_code} %{content_type}' --max-time 10 "$url" \
  -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "urn:lather:v1#Increment"' --data-binary "$envelope11")
check "SOAP 1.1 Increment(41) is 42" '<l:result>42</l:result>' "$out"
check "SOAP 1.1 answers 200 text/xml" 'HTTP200 text/xml' "$out"

envelope12=${envelope11//http:\/\/schemas.xmlsoap.org\/soap\/envelope\//http://www.w3.org/2003/05/soap-envelope}
out=$(curl -s -w ' HTTP%{http_code} %{content_type}' --max-time 10 "$url" \
  -H 'Content-Type: application/soap+xml; charset=utf-8; action="urn:lather:v1#Increment"' --data-binary "$envelope12")
check "SOAP 1.2 Increment(41) is 42" '<l:result>42</l:result>' "$out"
check "SOAP 1.2 answers 200 application/soap+xml" 'HTTP200 application/soap+xml' "$out"

out=$(curl -s -w ' HTTP%{http_code}' --max-time 10 "$url?wsdl")
check "?wsdl names this address" "location=\"$url\"" "$out"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
