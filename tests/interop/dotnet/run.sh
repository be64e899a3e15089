#!/usr/bin/env bash
# Interop test: .NET's ASMX client stack (System.Web.Services) through Mono (Debian mono-devel) against a
# live lather-service. Starts the service on an ephemeral port, generates a proxy from the live ?wsdl with
# Mono's `wsdl` tool (the wsdl.exe of .NET Framework) once per protocol (/protocol:SOAP and
# /protocol:SOAP12), compiles DotnetInterop.cs against each with `mcs`, runs both, stops the service with
# SIGTERM and expects exit 0.
# Usage: run.sh PATH/TO/lather-service
# Exits non-zero on any failure, with one FAIL line saying what.
set -uo pipefail
if [[ $# -ne 1 ]]; then echo "usage: $0 PATH/TO/lather-service" >&2; exit 2; fi
service_bin=$(realpath -m -- "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

fail() { echo "FAIL  $*"; exit 1; }

[[ -x $service_bin ]] || fail "$1 is not an executable file"
for tool in mono mcs wsdl; do
  command -v "$tool" >/dev/null || fail "$tool not found (install the Debian package mono-devel)"
done
echo "$(mono --version | head -n1)"

work=$(mktemp -d /tmp/lather-dotnet-XXXXXX)
# shellcheck source=tests/interop/service_lifecycle.sh
source "$(dirname "${BASH_SOURCE[0]}")/../service_lifecycle.sh"
trap 'stop_service; rm -rf "$work"' EXIT

start_service

# Mono's runtime writes its per-user config and the wsdl tool's cache under HOME: keep them in $work.
export HOME=$work no_proxy='*'
status=0
for protocol in SOAP SOAP12; do
  defines=""; [[ $protocol == SOAP12 ]] && defines="-define:SOAP12"
  gen=$work/$protocol.cs
  if ! timeout 60 wsdl /nologo /protocol:$protocol /namespace:Lather.Gen /out:"$gen" "$endpoint?wsdl" \
        >"$work/wsdl-$protocol.log" 2>&1 || [[ ! -s $gen ]]; then
    fail "wsdl /protocol:$protocol $endpoint?wsdl failed: $(grep -m1 -iE 'error|exception' "$work/wsdl-$protocol.log" || tail -n1 "$work/wsdl-$protocol.log")"
  fi
  grep -q 'class LatherService : System.Web.Services.Protocols.SoapHttpClientProtocol' "$gen" \
    || fail "wsdl /protocol:$protocol generated no LatherService SoapHttpClientProtocol class"
  echo "PASS  wsdl /protocol:$protocol generated the LatherService proxy from the live ?wsdl"
  exe=$work/DotnetInterop-$protocol.exe
  if ! timeout 60 mcs -nologo -nowarn:618 $defines -r:System.Web.Services -r:System.Xml -out:"$exe" \
        "$gen" "$here/DotnetInterop.cs" >"$work/mcs-$protocol.log" 2>&1; then
    fail "mcs ($protocol) failed: $(grep -m1 'error' "$work/mcs-$protocol.log" || tail -n1 "$work/mcs-$protocol.log")"
  fi
  echo "PASS  mcs compiled DotnetInterop.cs against the $protocol proxy"
  timeout 60 mono "$exe" "$endpoint"
  rc=$?
  [[ $rc -eq 124 ]] && echo "FAIL  DotnetInterop ($protocol) did not finish within 60 s"
  [[ $rc -eq 0 ]] || status=1
done

stop_service
if [[ $service_status == 0 ]]; then
  echo "PASS  service exits 0 on SIGTERM"
else
  echo "FAIL  service exit status on SIGTERM: $service_status; log tail: $(tail -n3 "$work/service.log")"
  status=1
fi
if [[ $status -eq 0 ]]; then echo "dotnet/run.sh: all passed"; else echo "dotnet/run.sh: FAILED"; fi
exit "$status"
