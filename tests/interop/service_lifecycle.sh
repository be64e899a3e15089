# tests/interop/service_lifecycle.sh: sourced by the interop scripts (bash) that drive a real lather-service.
# Needs $service_bin, $work (a temporary folder the caller removes) and a fail() function. Provides:
#   start_service      starts it on 127.0.0.1 port 0 with a SQLite store in $work; sets pid, port, endpoint
#   stop_service       SIGTERM, a bounded wait (10 s), then SIGKILL; sets service_status (exit code, killed, none)
# The caller traps EXIT with stop_service, so the service is stopped by PID also on failure.

pid=""

stop_service() {
  service_status=none
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; service_status=killed; fi
  wait "$pid" 2>/dev/null
  local rc=$?
  [[ $service_status == killed ]] || service_status=$rc
  pid=""
}

start_service() {
  "$service_bin" --listen 127.0.0.1:0 --store "sqlite:$work/c.db" --port-file "$work/port" --threads 2 \
    >"$work/service.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    [[ -s $work/port && $(cat "$work/port") == *[0-9] ]] && break
    kill -0 "$pid" 2>/dev/null || fail "service exited early: $(tail -n3 "$work/service.log")"
    sleep 0.1
  done
  port=$(tr -d '[:space:]' <"$work/port" 2>/dev/null)
  [[ $port =~ ^[0-9]+$ ]] || fail "service wrote no port file within 10 s"
  endpoint="http://127.0.0.1:$port/soap"
  echo "service started on port $port (pid $pid)"
}
