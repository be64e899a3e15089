#!/usr/bin/env bash
# Interop test: JAX-WS RI (Debian packages jaxws, libjaxws-java, default-jdk-headless) against a live
# lather-service. Starts the service on an ephemeral port, runs wsimport against the live ?wsdl into a
# temporary folder, compiles JaxwsInterop.java against the generated classes, runs it (SOAP 1.1 port
# LatherSoap and SOAP 1.2 port LatherSoap12), stops the service with SIGTERM and expects exit 0.
# Usage: jaxws_interop.sh PATH/TO/lather-service
# Exits non-zero on any failure, with one FAIL line saying what.
set -uo pipefail
if [[ $# -ne 1 ]]; then echo "usage: $0 PATH/TO/lather-service" >&2; exit 2; fi
service_bin=$(realpath -m -- "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jars=/usr/share/java
# jaxws-rt.jar's manifest Class-Path names the rest of the runtime (jaxb, saaj, stax-ex, streambuffer,
# policy, ...); JAXB and JAX-WS left the JDK in Java 11, so javax.activation must be added by hand.
classpath=$jars/jaxws-rt.jar:$jars/jaxws-api.jar:$jars/jaxb-api.jar:$jars/jws-api.jar:$jars/javax.activation.jar

fail() { echo "FAIL  $*"; exit 1; }

[[ -x $service_bin ]] || fail "$1 is not an executable file"

for jar in ${classpath//:/ } $jars/jaxws-tools.jar; do
  [[ -f $jar ]] || fail "missing $jar (install the Debian packages jaxws libjaxws-java default-jdk-headless)"
done
command -v javac >/dev/null || fail "javac not found (install default-jdk-headless)"
if command -v wsimport >/dev/null; then wsimport=(wsimport); else wsimport=(java -jar "$jars/jaxws-tools.jar"); fi

work=$(mktemp -d /tmp/lather-jaxws-XXXXXX)
# shellcheck source=tests/interop/service_lifecycle.sh
source "$(dirname "${BASH_SOURCE[0]}")/../service_lifecycle.sh"
trap 'stop_service; rm -rf "$work"' EXIT

start_service

# -extension: wsimport ignores a SOAP 1.2 port without it (the WS-I BP 1.1 profile JAX-WS checks
# against knows SOAP 1.1 only); with it, the LatherSoap12 port and getLatherSoap12() are generated.
mkdir -p "$work/gen" "$work/classes"
if ! timeout 60 "${wsimport[@]}" -extension -Xnocompile -quiet -encoding UTF-8 -d "$work/gen" -s "$work/gen" \
      -p lather.jaxws.gen "$endpoint?wsdl" >"$work/wsimport.log" 2>&1; then
  fail "wsimport $endpoint?wsdl failed: $(grep -m1 -iE 'error|exception' "$work/wsimport.log" || tail -n1 "$work/wsimport.log")"
fi
grep -q 'getLatherSoap12' "$work/gen/lather/jaxws/gen/LatherService.java" \
  || fail "wsimport generated no SOAP 1.2 port (getLatherSoap12) from $endpoint?wsdl"
echo "PASS  wsimport generated the client from the live ?wsdl (LatherSoap and LatherSoap12 ports)"

if ! timeout 60 javac -encoding UTF-8 -nowarn -cp "$classpath" -d "$work/classes" \
      $(find "$work/gen" -name '*.java') "$here/JaxwsInterop.java" >"$work/javac.log" 2>&1; then
  fail "javac failed: $(grep -m1 'error' "$work/javac.log" || tail -n1 "$work/javac.log")"
fi
echo "PASS  javac compiled JaxwsInterop.java against the generated classes"

# The property names SAAJ's implementation directly (else it logs a deprecation warning per message factory).
timeout 60 java -Djavax.xml.soap.SAAJMetaFactory=com.sun.xml.messaging.saaj.soap.SAAJMetaFactoryImpl \
  -cp "$work/classes:$classpath" JaxwsInterop "$endpoint?wsdl" "$endpoint"
status=$?
[[ $status -eq 124 ]] && echo "FAIL  JaxwsInterop did not finish within 60 s"

stop_service
if [[ $service_status == 0 ]]; then
  echo "PASS  service exits 0 on SIGTERM"
else
  echo "FAIL  service exit status on SIGTERM: $service_status; log tail: $(tail -n3 "$work/service.log")"
  status=1
fi
if [[ $status -eq 0 ]]; then echo "jaxws_interop.sh: all passed"; else echo "jaxws_interop.sh: FAILED"; fi
exit "$status"
