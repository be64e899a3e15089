# tests/topology/netns.sh: two network namespaces joined by a veth pair, for the staged scenarios
# (tests/topology/scenario.sh) and bench/seed-replay. Bash, to be sourced:
#
#   source tests/topology/netns.sh
#   lt_available || exit 77            # root, `ip netns` and veth work (prints why not on stderr)
#   lt_setup [RATE [half]]             # the namespaces and link; shaped to RATE (tc syntax: 10mbit) per
#                                      # direction, or with `half` one RATE shared by both directions
#   lt_start VAR NS CMD...             # CMD in the background in namespace NS ($LT_NS_SRV, $LT_NS_CLI or
#                                      # "host"), its PID in VAR; killed by lt_teardown, and by timeout
#                                      # after $LT_MAX_SECONDS (default 120) whatever happens to us
#   lt_run NS SECONDS CMD...           # CMD in the foreground in NS, killed after SECONDS
#   lt_wait_file FILE PID [SECONDS]    # waits until FILE is non-empty while PID lives (a --port-file)
#   lt_down                            # kills what lt_start started (by PID), deletes the namespaces;
#                                      # lt_setup may follow again
#   lt_teardown                        # lt_down, then lt_on_teardown if the caller defined it; idempotent;
#                                      # lt_traps (called by lt_setup) installs it on EXIT, INT and TERM
#
# After lt_setup:
#   LT_NS_SRV, LT_NS_CLI   the namespaces: lt-srv-$$ and lt-cli-$$ (unique per run: ctest -j2 runs
#                          several at once)
#   LT_SRV_IP, LT_CLI_IP   10.231.X.1 and 10.231.X.2 (/24, X = $$ % 256), on the veth ends only. The
#                          addresses exist only inside the two namespaces (each pair has its own network
#                          stack, so two runs with the same X never meet); nothing is routed elsewhere, and
#                          the namespaces have no other interface than lo
#   LT_DEV_SRV, LT_DEV_CLI the veth ends: lt-srv in LT_NS_SRV, lt-cli in LT_NS_CLI. Created directly
#                          inside the namespaces (`ip link add ... netns`), so never in the host's
#
# Shaping: tbf has no delay (this kernel has no netem), only a rate. Full duplex (the default): a tbf on
# each end's egress, so requests (cli -> srv) and responses (srv -> cli) each get RATE. Half duplex: both
# directions of lt-srv are redirected (tc mirred, from its clsact ingress and egress hooks) into one ifb
# device in LT_NS_SRV whose tbf is the only bucket, so requests and responses share RATE.
# The bucket: burst = 4 ms of RATE, at least 15,000 bytes (10 full frames); queue: 100 ms of RATE.
#
# Processes: lt_start runs `timeout -k 5 $LT_MAX_SECONDS ip netns exec NS CMD` and records two PIDs:
# CMD's own and timeout's (so that CMD ends even if this shell is killed with SIGKILL, e.g. by CTest's
# TIMEOUT). lt_down sends TERM to the recorded PIDs only, waits up to 5 s each, then KILL.

LT_MAX_SECONDS=${LT_MAX_SECONDS:-120}
LT_NS_SRV=""
LT_NS_CLI=""
LT_PIDS=()
LT_TORN_DOWN=0

# Returns 0 when namespaces can be made here; otherwise prints the reason on stderr and returns 1.
lt_available() {
  if [[ $(id -u) -ne 0 ]]; then echo "netns: not root: the topology needs network namespaces" >&2; return 1; fi
  if ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    echo "netns: ip or tc (iproute2) is not installed" >&2; return 1
  fi
  if ! command -v timeout >/dev/null; then echo "netns: timeout (coreutils) is missing" >&2; return 1; fi
  local probe="lt-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then echo "netns: \`ip netns add\` does not work here" >&2; return 1; fi
  local veth_ok=0
  ip link add lt-a netns "$probe" type veth peer name lt-b netns "$probe" 2>/dev/null && veth_ok=1
  ip netns del "$probe" 2>/dev/null
  if ((veth_ok == 0)); then echo "netns: veth links cannot be made here" >&2; return 1; fi
  return 0
}

# The tbf arguments for RATE (tc syntax: 10mbit, 100mbit, 1gbit).
lt_tbf_args() {
  local bits
  bits=$(tc_rate_bits "$1") || return 1
  local burst=$((bits / 8 / 250))  # 4 ms
  ((burst < 15000)) && burst=15000
  local limit=$((bits / 8 / 10))   # 100 ms
  ((limit < 3 * burst)) && limit=$((3 * burst))
  echo "rate $1 burst $burst limit $limit"
}

# Bits per second of a tc rate such as 10mbit, 1gbit, 500kbit (decimal units, as tc reads them).
tc_rate_bits() {
  local r=${1,,}
  case $r in
    *gbit) echo $((${r%gbit} * 1000000000)) ;;
    *mbit) echo $((${r%mbit} * 1000000)) ;;
    *kbit) echo $((${r%kbit} * 1000)) ;;
    *bit) echo $((${r%bit})) ;;
    *) echo "netns: rate $1: use e.g. 10mbit, 1gbit" >&2; return 1 ;;
  esac
}

# Deletes namespaces left by an earlier run of this library that was killed before its teardown (its
# PID no longer lives). Kills nothing: a namespace with a process still in it lives on until it exits.
lt_reap_stale() {
  local ns pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns =~ ^lt-(srv|cli)-([0-9]+)$ ]] || continue
    pid=${BASH_REMATCH[2]}
    if [[ $pid == "$$" ]] || ! kill -0 "$pid" 2>/dev/null; then ip netns del "$ns" 2>/dev/null || true; fi
  done
}

# Runs lt_teardown when the shell exits, fails or is interrupted.
lt_traps() {
  trap lt_teardown EXIT
  trap 'lt_teardown; exit 130' INT
  trap 'lt_teardown; exit 143' TERM
}

# Makes the two namespaces and the link, optionally shaped (RATE per direction, or shared with `half`).
# Installs lt_teardown on EXIT, INT and TERM. Returns 1 (having undone its steps) when one fails.
lt_setup() {
  local rate=${1:-} duplex=${2:-full}
  lt_traps
  lt_reap_stale
  LT_NS_SRV="lt-srv-$$"
  LT_NS_CLI="lt-cli-$$"
  local x=$(($$ % 256))
  LT_SRV_IP="10.231.$x.1"
  LT_CLI_IP="10.231.$x.2"
  LT_DEV_SRV=lt-srv
  LT_DEV_CLI=lt-cli
  {
    ip netns add "$LT_NS_SRV" &&
    ip netns add "$LT_NS_CLI" &&
    ip link add "$LT_DEV_SRV" netns "$LT_NS_SRV" type veth peer name "$LT_DEV_CLI" netns "$LT_NS_CLI" &&
    ip -n "$LT_NS_SRV" addr add "$LT_SRV_IP/24" dev "$LT_DEV_SRV" &&
    ip -n "$LT_NS_CLI" addr add "$LT_CLI_IP/24" dev "$LT_DEV_CLI" &&
    ip -n "$LT_NS_SRV" link set lo up &&
    ip -n "$LT_NS_CLI" link set lo up &&
    ip -n "$LT_NS_SRV" link set "$LT_DEV_SRV" up &&
    ip -n "$LT_NS_CLI" link set "$LT_DEV_CLI" up
  } || { echo "netns: could not make the namespaces and link" >&2; lt_down; return 1; }
  if [[ -n $rate ]]; then
    local tbf
    tbf=$(lt_tbf_args "$rate") || { lt_down; return 1; }
    if [[ $duplex == half ]]; then
      # shellcheck disable=SC2086
      {
        ip -n "$LT_NS_SRV" link add lt-shared type ifb &&
        ip -n "$LT_NS_SRV" link set lt-shared up &&
        ip netns exec "$LT_NS_SRV" tc qdisc add dev lt-shared root tbf $tbf &&
        ip netns exec "$LT_NS_SRV" tc qdisc add dev "$LT_DEV_SRV" clsact &&
        ip netns exec "$LT_NS_SRV" tc filter add dev "$LT_DEV_SRV" ingress protocol all prio 1 u32 match u32 0 0 \
          action mirred egress redirect dev lt-shared &&
        ip netns exec "$LT_NS_SRV" tc filter add dev "$LT_DEV_SRV" egress protocol all prio 1 u32 match u32 0 0 \
          action mirred egress redirect dev lt-shared
      } || { echo "netns: could not shape the link to $rate shared (ifb + mirred + tbf)" >&2; lt_down; return 1; }
    else
      # shellcheck disable=SC2086
      {
        ip netns exec "$LT_NS_SRV" tc qdisc add dev "$LT_DEV_SRV" root tbf $tbf &&
        ip netns exec "$LT_NS_CLI" tc qdisc add dev "$LT_DEV_CLI" root tbf $tbf
      } || { echo "netns: could not shape the link to $rate each way (tbf)" >&2; lt_down; return 1; }
    fi
  fi
  return 0
}

# lt_start VAR NS CMD...: starts CMD in NS ("host" = this namespace) in the background, bounded by
# LT_MAX_SECONDS; VAR gets the PID of CMD itself (ip netns exec and taskset exec in place, so it is the
# PID to give --server-pid), LT_TIMEOUT_PID that of the timeout above it. Both are recorded for teardown.
lt_start() {
  local var=$1 ns=$2
  shift 2
  if [[ $ns == host ]]; then
    timeout -k 5 "$LT_MAX_SECONDS" "$@" &
  else
    timeout -k 5 "$LT_MAX_SECONDS" ip netns exec "$ns" "$@" &
  fi
  LT_TIMEOUT_PID=$!
  local child="" _
  for _ in $(seq 250); do
    child=$(awk '{print $1}' "/proc/$LT_TIMEOUT_PID/task/$LT_TIMEOUT_PID/children" 2>/dev/null)
    [[ -n $child ]] && break
    kill -0 "$LT_TIMEOUT_PID" 2>/dev/null || break
    sleep 0.02
  done
  [[ -n $child ]] && LT_PIDS+=("$child")
  LT_PIDS+=("$LT_TIMEOUT_PID")
  printf -v "$var" '%s' "${child:-$LT_TIMEOUT_PID}"
}

# lt_run NS SECONDS CMD...: runs CMD in NS ("host" = here) and waits for it; TERM after SECONDS, KILL 5 s
# later. Returns CMD's exit status (124 when it timed out). CMD runs as a background job that this shell
# waits for, so that a TERM or INT to the shell runs its trap (lt_teardown, which stops CMD) at once
# instead of after CMD ends.
lt_run() {
  local ns=$1 seconds=$2
  shift 2
  if [[ $ns == host ]]; then
    timeout -k 5 "$seconds" "$@" &
  else
    timeout -k 5 "$seconds" ip netns exec "$ns" "$@" &
  fi
  local pid=$! rc
  LT_PIDS+=("$pid")
  wait "$pid"
  rc=$?
  local kept=() p
  for p in "${LT_PIDS[@]}"; do [[ $p == "$pid" ]] || kept+=("$p"); done
  LT_PIDS=("${kept[@]}")
  return "$rc"
}

# lt_wait_file FILE PID [SECONDS]: returns 0 once FILE is non-empty, 1 if PID exits or SECONDS (10) pass.
lt_wait_file() {
  local file=$1 pid=$2 tenths=$((${3:-10} * 10)) _
  for _ in $(seq "$tenths"); do
    [[ -s $file ]] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# Stops what lt_start started (TERM, up to 5 s, then KILL; by PID only) and deletes the namespaces
# (their veth and ifb go with them). lt_setup may be called again afterwards (a bench's next speed).
lt_down() {
  local pid _
  for pid in "${LT_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${LT_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  LT_PIDS=()
  [[ -n $LT_NS_CLI ]] && ip netns del "$LT_NS_CLI" 2>/dev/null
  [[ -n $LT_NS_SRV ]] && ip netns del "$LT_NS_SRV" 2>/dev/null
  LT_NS_CLI=""
  LT_NS_SRV=""
  return 0
}

# lt_down, then the caller's lt_on_teardown if it defined one (e.g. removing its temporary folder).
# Safe to call more than once: the traps of lt_traps call it.
lt_teardown() {
  ((LT_TORN_DOWN)) && return 0
  LT_TORN_DOWN=1
  lt_down
  if declare -F lt_on_teardown >/dev/null; then lt_on_teardown; fi
  return 0
}
