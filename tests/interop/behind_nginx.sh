#!/usr/bin/env bash
# lather-service behind nginx with the documented configuration (deploy/nginx/lather.conf,
# docs/reverse-proxy.md): starts the service on port 0 and Debian's nginx in a temporary prefix with that
# file included (only the upstream address and the listen port filled in), then checks through nginx:
# Increment over SOAP 1.1 and 1.2, ?wsdl naming the proxy's address, a fault's status and reason, 413 for an
# over-size body (announced and streamed), IncCounter 1 then 2, upstream keep-alive, /metrics not public,
# the proxy's limits equal to the service's defaults, a SOAP fault with 502 once the service is gone, and
# that docs/reverse-proxy.md shows lather.conf as it is.
#
# Usage: behind_nginx.sh SERVICE_BIN CALL_BIN
# Prints "ok ..." per check; on the first mismatch one line "behind_nginx: FAIL: ..." and exit 1.
# Exit 77 (CTest SKIP_RETURN_CODE) when nginx or curl is not installed.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 SERVICE_BIN CALL_BIN" >&2
  exit 64
fi
service_bin=$1
call_bin=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
conf_src=$here/../../deploy/nginx/lather.conf

fail() { local line="$*"; echo "behind_nginx: FAIL: ${line//$'\n'/ }"; exit 1; }
ok() { echo "ok $*"; }

for tool in nginx curl; do
  command -v "$tool" >/dev/null || { echo "behind_nginx: SKIP: $tool is not installed (scripts/bootstrap)"; exit 77; }
done
for bin in "$service_bin" "$call_bin"; do
  [[ -x $bin ]] || fail "$bin is missing or not executable"
done
[[ -r $conf_src ]] || fail "$conf_src is missing"
doc=$here/../../docs/reverse-proxy.md
if [[ -r $doc ]]; then  # the doc shows the file: the first ```nginx block must be the file, byte for byte
  cmp -s <(awk '/^```nginx$/ {on = 1; next} on && /^```$/ {exit} on' "$doc") "$conf_src" ||
    fail "docs/reverse-proxy.md's first nginx block differs from deploy/nginx/lather.conf: copy the file into the doc"
fi

work=$(mktemp -d /tmp/lather-nginx-XXXXXX)
service_pid=
nginx_pid=
cleanup() {
  # nginx (the master; its worker follows it) and the service: by PID, bounded waits, then SIGKILL.
  local pid
  for pid in $nginx_pid $service_pid; do
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The service, on a free port, with its default limits and timeouts (the ones lather.conf mirrors).
"$service_bin" --listen 127.0.0.1:0 --port-file "$work/service.port" --store "sqlite:$work/counters.db" \
  --threads 1 2>"$work/service.log" &
service_pid=$!
for _ in $(seq 100); do
  [[ -s $work/service.port ]] && break
  kill -0 "$service_pid" 2>/dev/null || fail "lather-service exited at start: $(tail -1 "$work/service.log")"
  sleep 0.1
done
[[ -s $work/service.port ]] || fail "lather-service did not write its port within 10 s"
service_port=$(cat "$work/service.port")

# The proxy's limits must be the service's defaults (its --help says them).
help=$("$service_bin" --help)
default_of() { sed -n "s/.*--$1 .*(default \([0-9]*\)).*/\1/p" <<<"$help"; }
conf_value() { sed -n "/^server {/,\$ s/^ *$1 \([0-9]*\)\([a-z]*\);.*/\1 \2/p" "$conf_src" | head -1; }  # in server {}
to_bytes() { case $2 in m) echo $(($1 * 1024 * 1024));; k) echo $(($1 * 1024));; "") echo "$1";; esac; }
to_ms() { case $2 in s) echo $(($1 * 1000));; ms|"") echo "$1";; m) echo $(($1 * 60000));; esac; }
check_limit() {  # check_limit NGINX_DIRECTIVE SERVICE_FLAG bytes|ms
  local value unit converted service_default
  read -r value unit <<<"$(conf_value "$1")"
  [[ -n $value ]] || fail "lather.conf has no '$1 N;' line"
  converted=$("to_$3" "$value" "$unit")
  service_default=$(default_of "$2")
  [[ -n $service_default ]] || fail "lather-service --help names no default for --$2"
  [[ $converted == "$service_default" ]] ||
    fail "lather.conf $1 is $value$unit ($converted $3) but lather-service --$2 defaults to $service_default"
}
check_limit client_max_body_size max-message bytes
check_limit client_header_timeout header-timeout ms
check_limit client_body_timeout body-timeout ms
check_limit keepalive_timeout idle-timeout ms
ok "lather.conf's body limit and timeouts equal lather-service's defaults"

# nginx: lather.conf with the upstream and listen lines filled in, included in a minimal nginx.conf whose
# files all live in $work. nginx -e sends its start-up messages there too (not to /var/log/nginx).
if [[ $EUID -eq 0 ]]; then user_line="user $(id -un) $(id -gn);"; else user_line=""; fi
start_nginx() {
  nginx_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  sed -e "s/^\( *\)server 127\.0\.0\.1:8080;/\1server 127.0.0.1:$service_port;/" \
      -e "s/^\( *\)listen 80;/\1listen 127.0.0.1:$nginx_port;/" "$conf_src" >"$work/lather.conf"
  [[ $(grep -c "server 127.0.0.1:$service_port;\|listen 127.0.0.1:$nginx_port;" "$work/lather.conf") == 2 ]] ||
    fail "lather.conf no longer has the lines 'server 127.0.0.1:8080;' and 'listen 80;' this test fills in"
  cat >"$work/nginx.conf" <<EOF
$user_line
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log info;
events { worker_connections 256; }
http {
  access_log $work/nginx-access.log;
  client_body_temp_path $work/body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  include $work/lather.conf;
}
EOF
  nginx -e "$work/nginx-error.log" -c "$work/nginx.conf" -p "$work/" 2>"$work/nginx.stderr" &
  nginx_pid=$!
  for _ in $(seq 50); do
    kill -0 "$nginx_pid" 2>/dev/null || { wait "$nginx_pid" 2>/dev/null; nginx_pid=; return 1; }
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$nginx_port/soap?wsdl") == 200 ]] && return 0
    sleep 0.1
  done
  return 1
}
started=0
for _ in 1 2 3; do  # a free port can be taken between the probe and nginx's bind: try another
  if start_nginx; then started=1; break; fi
done
[[ $started == 1 ]] || fail "nginx did not start or does not answer GET /soap?wsdl: $(tail -2 "$work/nginx-error.log" "$work/nginx.stderr" 2>/dev/null | tr '\n' ' ')"
url="http://127.0.0.1:$nginx_port/soap"

# Increment 41 over SOAP 1.1 and 1.2, with the gSOAP client.
out=$("$call_bin" --url "$url" --timeout 10 increment 41 2>&1) || fail "lather-call increment 41 (SOAP 1.1) through nginx: exit $?: $out"
[[ $out == 42 ]] || fail "lather-call increment 41 (SOAP 1.1) through nginx printed '$out', expected 42"
ok "SOAP 1.1 Increment(41) = 42 through nginx"
out=$("$call_bin" --url "$url" --timeout 10 --soap12 increment 41 2>&1) || fail "lather-call --soap12 increment 41 through nginx: exit $?: $out"
[[ $out == 42 ]] || fail "lather-call --soap12 increment 41 through nginx printed '$out', expected 42"
ok "SOAP 1.2 Increment(41) = 42 through nginx"

# ?wsdl names the proxy's address, not the service's.
wsdl=$(curl -s --max-time 10 "$url?wsdl")
locations=$(grep -o 'location="[^"]*"' <<<"$wsdl" | sort -u)
[[ $locations == "location=\"$url\"" ]] ||
  fail "GET /soap?wsdl through nginx names '$(tr '\n' ' ' <<<"$locations")', expected only location=\"$url\" (service at :$service_port)"
ok "GET /soap?wsdl through nginx names $url"

# A fault keeps its status and reason through the proxy.
envelope='<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:l="urn:lather:v1">
  <soap:Body><l:Increment><l:value>2147483647</l:value></l:Increment></soap:Body>
</soap:Envelope>'
out=$(curl -s -w '\nHTTP%{http_code}' --max-time 10 "$url" -H 'Content-Type: text/xml; charset=utf-8' \
  -H 'SOAPAction: "urn:lather:v1#Increment"' --data-binary "$envelope")
[[ $out == *HTTP500 ]] || fail "Increment(2147483647) through nginx: status ${out##*HTTP}, expected 500"
[[ $out == *'<faultcode>SOAP-ENV:Client</faultcode>'* && $out == *'<faultstring>'*2147483647*overflow*'</faultstring>'* ]] ||
  fail "Increment(2147483647) through nginx: no Client fault naming the overflow in: ${out:0:400}"
ok "Increment(2147483647) through nginx: 500, Client fault, reason '$(sed -n 's/.*<faultstring>\(.*\)<\/faultstring>.*/\1/p' <<<"$out")'"

# Over-size bodies: nginx answers 413 with a fault of the request's SOAP version, whether the size is
# announced (Content-Length: limit + 1; nginx answers from the head) or only found out while streaming
# (chunked, limit + 1 bytes really sent).
limit=$(default_of max-message)
out=$(curl -s -w '\nHTTP%{http_code}' --max-time 10 "$url" -H 'Content-Type: application/soap+xml; charset=utf-8' \
  -H "Content-Length: $((limit + 1))" --data-binary 'x')
[[ $out == *HTTP413 ]] || fail "a body of $((limit + 1)) bytes (Content-Length) through nginx: status ${out##*HTTP}, expected 413"
[[ $out == *'<env:Value>env:Sender</env:Value>'* ]] || fail "413 through nginx: no SOAP 1.2 Sender fault in: ${out:0:400}"
ok "Content-Length $((limit + 1)) through nginx: 413 with a SOAP 1.2 Sender fault"
code=$(head -c $((limit + 1)) /dev/zero | curl -s -o "$work/413.txt" -w '%{http_code}' --max-time 20 "$url" \
  -X POST -H 'Content-Type: text/xml; charset=utf-8' -T -)
[[ $code == 413 ]] || fail "a chunked body of $((limit + 1)) bytes through nginx: status $code, expected 413"
grep -q '<faultcode>SOAP-ENV:Client</faultcode>' "$work/413.txt" || fail "chunked 413 through nginx: no SOAP 1.1 Client fault in: $(head -c 400 "$work/413.txt")"
ok "chunked body of $((limit + 1)) bytes through nginx: 413 with a SOAP 1.1 Client fault"

# IncCounter: durable state through the proxy's kept-alive upstream connections.
for expected in 1 2; do
  out=$("$call_bin" --url "$url" --timeout 10 inc-counter behind-nginx 2>&1) || fail "lather-call inc-counter through nginx: exit $?: $out"
  [[ $out == "$expected" ]] || fail "IncCounter(behind-nginx) call $expected through nginx printed '$out', expected $expected"
done
ok "IncCounter twice through nginx: 1 then 2"

# The upstream connections are kept alive: 10 more calls (10 client connections to nginx) open at most
# one new connection to the service (plus the two metrics reads themselves).
accepted() { curl -s --max-time 10 "http://127.0.0.1:$service_port/metrics" | sed -n 's/^lather_connections_accepted_total \([0-9]*\).*/\1/p'; }
before=$(accepted)
[[ -n $before ]] || fail "GET /metrics on the service's own address has no lather_connections_accepted_total"
for i in $(seq 10); do
  out=$("$call_bin" --url "$url" --timeout 10 increment "$i" 2>&1)
  [[ $out == $((i + 1)) ]] || fail "lather-call increment $i through nginx printed '$out', expected $((i + 1))"
done
after=$(accepted)
(( after - before <= 3 )) ||
  fail "10 calls through nginx opened $((after - before - 1)) connections to the service: upstream keep-alive is not working"
ok "10 calls through nginx opened $((after - before - 1)) new connection(s) to the service (keep-alive upstream)"

# /metrics is not public; the service still answers it on its own address.
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$nginx_port/metrics")
[[ $code == 404 ]] || fail "GET /metrics through nginx: status $code, expected 404 (not exposed)"
ok "GET /metrics: 404 through nginx (the service serves it on its own address)"

# The service gone: 502 and a Server fault, not nginx's HTML page.
kill -TERM "$service_pid"
for _ in $(seq 100); do kill -0 "$service_pid" 2>/dev/null || break; sleep 0.1; done
wait "$service_pid" 2>/dev/null
service_pid=
out=$(curl -s -w '\nHTTP%{http_code}' --max-time 10 "$url" -H 'Content-Type: text/xml; charset=utf-8' --data-binary "$envelope")
[[ $out == *HTTP502 && $out == *'<faultcode>SOAP-ENV:Server</faultcode>'* ]] ||
  fail "with the service stopped, nginx answered ${out##*HTTP} '${out:0:300}', expected 502 with a Server fault"
ok "service stopped: 502 with a SOAP 1.1 Server fault"

echo "behind_nginx: all checks passed"
