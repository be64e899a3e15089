#!/usr/bin/env bash
# The CONTRACT.md example, sent with curl exactly as a user would, over SOAP 1.1 and 1.2; then every
# operation by hand-written envelope over both versions: Increment(-1), the Increment(2147483647) fault
# (status, code and reason text), HelloWorld, IncCounter twice + GetCounter on a fresh name, and an
# EchoDataSamples whose echo must be the request's <samples> element (compared after XML C14N with
# xmllint, namespace prefixes removed: nested children, non-ASCII text, zoned dateTimes, doubles, booleans).
# Usage: curl_contract_example.sh PATH/TO/lather-service
set -uo pipefail
service_bin=$1
work=$(mktemp -d /tmp/lather-curl-XXXXXX)
"$service_bin" --listen 127.0.0.1:0 --store "sqlite:$work/c.db" --port-file "$work/port" 2>"$work/log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.1; done
if [[ ! -s "$work/port" ]]; then echo "FAIL service wrote no port file within 10 s: $(tail -n3 "$work/log")"; exit 1; fi
url="http://127.0.0.1:$(cat "$work/port")/soap"
passed=0 failed=0
check() {  # check NAME EXPECTED ACTUAL: ACTUAL contains EXPECTED
  if [[ "$3" == *"$2"* ]]; then passed=$((passed + 1)); echo "PASS $1"; else failed=$((failed + 1)); echo "FAIL $1: got $3"; fi
}
check_eq() {  # check_eq NAME EXPECTED ACTUAL: exactly equal
  if [[ "$3" == "$2" ]]; then passed=$((passed + 1)); echo "PASS $1"
  else failed=$((failed + 1)); echo "FAIL $1: got '$3', expected '$2'"; fi
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

# ---------------------------------------------------------------------------------------------
# Every operation, both SOAP versions. post VERSION OPERATION BODY-CHILD writes the response body to
# $work/resp and sets status / ctype (curl failing leaves status 000).
post() {
  local env ct
  if [[ $1 == 1.1 ]]; then
    env=http://schemas.xmlsoap.org/soap/envelope/
    ct=(-H 'Content-Type: text/xml; charset=utf-8' -H "SOAPAction: \"urn:lather:v1#$2\"")
  else
    env=http://www.w3.org/2003/05/soap-envelope
    ct=(-H "Content-Type: application/soap+xml; charset=utf-8; action=\"urn:lather:v1#$2\"")
  fi
  printf '<?xml version="1.0" encoding="UTF-8"?><e:Envelope xmlns:e="%s"><e:Body>%s</e:Body></e:Envelope>' \
    "$env" "$3" >"$work/req"
  local meta
  meta=$(curl -s -o "$work/resp" -w '%{http_code} %{content_type}' --max-time 10 "${ct[@]}" \
           --data-binary "@$work/req" "$url") || true
  status=${meta%% *}
  ctype=${meta#* }
}
# The text of the first element with this local name (any prefix) in the response.
text_of() { sed -n "s#.*<\([A-Za-z0-9_.-]*:\)\{0,1\}$1\( [^>]*\)\{0,1\}>\([^<]*\)</.*#\3#p" "$work/resp" | head -n1; }
# The <samples> element of a message after C14N, prefixes removed, on one line.
canon_samples() {
  xmllint --c14n "$1" 2>/dev/null | sed -E 's#<(/?)[A-Za-z0-9_.-]+:#<\1#g' | tr -d '\n' | grep -o '<samples>.*</samples>'
}

sample() {  # sample FIRST LAST CITY ZIP CONTACT-ITEMS SALARY COMPANY-ITEMS DATE MARRIED CHILDREN
  printf '<sample><firstname>%s</firstname><lastname>%s</lastname><city>%s</city><zip>%s</zip><email>x@example.org</email><contactNos>%s</contactNos><designation>Senior &lt;Engineer&gt; &amp; "Architect"</designation><experience>-1</experience><salary>%s</salary><companiesWorkedFor>%s</companiesWorkedFor><dateOfBirth>%s</dateOfBirth><isMarried>%s</isMarried><children>%s</children></sample>' "$@"
}
# Doubles in the form the service writes them (fewest round-trip digits, %G layout: 1234.5678, -0.5, 30000000000).
grandchild=$(sample 'Åsa' 'Ærøskøbing-Møller' 'Ærøskøbing' 5970 '' 1234.5678 '<item></item>' '2015-01-02T03:04:05.25Z' false '')
child=$(sample 'Taro' '山田' '東京' 1000001 '<item>03-0000-0000</item><item>090-0000-0000</item>' -0.5 '' \
  '2012-12-31T23:59:59.999999+09:00' true "$grandchild")
samples="<samples>$(sample 'Jürgen' 'Ørsted' 'Zürich' 4294967295 '<item>+41 44 000 00 00</item>' 1234.5678 \
  '<item>東京電力</item><item>Müller &amp; Söhne &lt;GmbH&gt;</item>' '1980-02-29T13:45:30.123456+02:00' true "$child")$(
  sample 'Hanako' '山田' '東京' 0 '' 30000000000 '' '1975-07-01T00:00:00-05:30' false '')</samples>"

for v in 1.1 1.2; do
  if [[ $v == 1.1 ]]; then want_ct=text/xml fault_status=500 fault_code=Client; else
    want_ct=application/soap+xml fault_status=400 fault_code=Sender; fi

  post $v Increment '<Increment xmlns="urn:lather:v1"><value>-1</value></Increment>'
  check_eq "SOAP $v Increment(-1) is 0 (HTTP $status)" "200 0" "$status $(text_of result)"

  post $v Increment '<Increment xmlns="urn:lather:v1"><value>2147483647</value></Increment>'
  if [[ $v == 1.1 ]]; then code=$(text_of faultcode) reason=$(text_of faultstring); else
    code=$(text_of Value) reason=$(text_of Text); fi
  check_eq "SOAP $v Increment(2147483647) is HTTP $fault_status $want_ct, a $fault_code fault with the service's reason" \
    "$fault_status $want_ct $fault_code Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow" \
    "$status ${ctype%%;*} ${code##*:} $reason"

  post $v HelloWorld '<HelloWorld xmlns="urn:lather:v1"/>'
  check_eq "SOAP $v HelloWorld is 'Hello World'" "200 Hello World" "$status $(text_of result)"

  name="curl-$v-$(cat /proc/sys/kernel/random/uuid)"
  values=()
  for op in IncCounter IncCounter GetCounter; do
    post $v $op "<$op xmlns=\"urn:lather:v1\"><name>$name</name></$op>"
    values+=("$status:$(text_of result)")
  done
  check_eq "SOAP $v IncCounter twice on a fresh name gives 1, 2 and GetCounter gives 2" "200:1 200:2 200:2" "${values[*]}"

  post $v EchoDataSamples "<EchoDataSamples xmlns=\"urn:lather:v1\">$samples</EchoDataSamples>"
  sent=$(canon_samples "$work/req") got=$(canon_samples "$work/resp")
  if [[ $status == 200 && -n $sent && $sent == "$got" ]]; then
    passed=$((passed + 1)); echo "PASS SOAP $v EchoDataSamples echoes <samples> (nested, non-ASCII, zoned dateTime, double, boolean)"
  else
    # the first difference, with some context
    i=0; while [[ $i -lt ${#sent} && ${sent:$i:1} == "${got:$i:1}" ]]; do i=$((i + 1)); done
    from=$((i > 60 ? i - 60 : 0))
    failed=$((failed + 1))
    echo "FAIL SOAP $v EchoDataSamples (HTTP $status): echo differs at character $i: got '…${got:$from:120}…', sent '…${sent:$from:120}…'"
  fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
