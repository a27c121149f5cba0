#!/usr/bin/env bash
# rlsim's product models against the real products (docs/products.md#validated-against-the-real-
# products): starts Debian's nginx (limit_req) and HAProxy (a stick table with a deny rule) on
# loopback ports from a temporary folder, as foreground processes with their own configuration,
# drives them with a seeded request schedule (tests/real-products/drive.py), replays their access
# logs through nginx_limit_req and haproxy_stick_table configured the same way (traffic[].replay)
# and compares the decisions request by request (tests/real-products/compare.py). Runs: one nginx
# with burst and nodelay; one without burst; two nginx behind an HAProxy round robin (the N x
# overshoot, measured); one nginx under load from hey; one HAProxy; two HAProxy with peers. Stops
# every process it started.
# Fails when a run's agreement is below the floor (default 0.98: the issue's target is 0.99, met in
# most runs, but a loaded machine moves a few more requests onto a millisecond boundary; LOAD_FLOOR,
# 0.90, for the load run, which hits millisecond boundaries far more often (96.8% to 99.4% on a quiet
# machine, 92.5% with two compilers running beside the suite); PEERS_FLOOR, 0.90, for the peers run, decided
# by which of two HAProxy overwrites the other last: docs/products.md says why).
# Usage: tests/real-products.sh RLSIM [SECONDS] [FLOOR] [LOAD_FLOOR] [PEERS_FLOOR]   (RUNS="nginx-burst haproxy-peers": only those;
#        KEEP_WORK=1: keep the temporary folder with the logs, scenarios, traces and reports)
set -euo pipefail
rlsim=$(realpath "$1")
seconds=${2:-20}
floor=${3:-0.98}
load_floor=${4:-0.90}
peers_floor=${5:-0.90}
here=$(cd "$(dirname "$0")" && pwd)
for tool in nginx haproxy hey; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || {
    echo "real-products: $tool is not installed (tests/install-deps.sh)" >&2
    exit 1
  }
done
export PATH="$PATH:/usr/sbin"
work=$(mktemp -d)
chmod 755 "$work" # nginx's workers run as another user when started by root
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -z "${KEEP_WORK:-}" ]; then rm -rf "$work"; else echo "real-products: kept $work"; fi
}
trap cleanup EXIT

# Free loopback ports, a fresh one for each server of each run: a stopped nginx's worker can
# still hold its port for a moment.
read -r -a ports < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(16)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')

wait_port() {
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.1)" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "real-products: nothing listens on port $1" >&2
  exit 1
}

# start_nginx NAME PORT LIMIT_REQ_ZONE_RATE LIMIT_REQ_ARGS: one nginx, one worker.
start_nginx() {
  local dir="$work/$1"
  mkdir -p "$dir/www" "$dir/tmp"
  echo ok >"$dir/www/index.html"
  cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log;
events {}
http {
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  limit_req_zone \$http_x_key zone=per_key:1m rate=$3;
  log_format rl '\$msec \$status "\$http_x_key" \$server_port';
  server {
    listen 127.0.0.1:$2;
    access_log $dir/access.log rl;
    location / { limit_req zone=per_key $4; limit_req_status 429; root $dir/www; }
  }
}
EOF
  nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
  pids+=($!)
  wait_port "$2"
}

# start_haproxy NAME CONFIG_BODY: HAProxy in the foreground (-db), its log on stdout.
start_haproxy() {
  local dir="$work/$1"
  mkdir -p "$dir"
  printf 'global\n  log stdout format raw local0\ndefaults\n  mode http\n  log global\n  timeout connect 1s\n  timeout client 5s\n  timeout server 5s\n%s\n' "$2" >"$dir/haproxy.cfg"
  haproxy -db -f "$dir/haproxy.cfg" -L "$1" >"$dir/access.log" 2>"$dir/stderr.log" &
  pids+=($!)
}

stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}

drive() { python3 "$here/real-products/drive.py" 33 "$seconds" 6 "$@"; }
compare() { python3 "$here/real-products/compare.py" "$rlsim" "$work" "$@"; }
status=0
want() { [ -z "${RUNS:-}" ] || [[ " $RUNS " == *" $1 "* ]]; }

# 1. One nginx, rate=10r/s burst=5 nodelay; six keys at 14 requests a second.
if want nginx-burst; then
  start_nginx nginx-burst "${ports[0]}" 10r/s "burst=5 nodelay"
  echo "nginx-burst: sent $(drive 14 "127.0.0.1:${ports[0]}")"
  stop_all
  compare nginx-burst 1 "$floor" '{"name": "nginx_limit_req", "rate": "10r/s", "burst": 5, "nodelay": true}' \
    "$work/nginx-burst/access.log" || status=1
fi

# 2. One nginx, rate=5r/s without burst: every request closer than 200 ms to the last is refused.
if want nginx-noburst; then
  start_nginx nginx-noburst "${ports[1]}" 5r/s ""
  echo "nginx-noburst: sent $(drive 6 "127.0.0.1:${ports[1]}")"
  stop_all
  compare nginx-noburst 1 "$floor" '{"name": "nginx_limit_req", "rate": "5r/s"}' \
    "$work/nginx-noburst/access.log" || status=1
fi

# 3. Two nginx behind an HAProxy round robin: each has its own zone, so a key gets twice the rate.
if want nginx-two; then
  start_nginx nginx-a "${ports[2]}" 10r/s "burst=5 nodelay"
  start_nginx nginx-b "${ports[3]}" 10r/s "burst=5 nodelay"
  start_haproxy balancer "frontend fe
    bind 127.0.0.1:${ports[4]}
    default_backend nginx
  backend nginx
    balance roundrobin
    server a 127.0.0.1:${ports[2]}
    server b 127.0.0.1:${ports[3]}"
  wait_port "${ports[4]}"
  echo "nginx-two: sent $(drive 30 "127.0.0.1:${ports[4]}")"
  stop_all
  compare nginx-two 2 "$floor" '{"name": "nginx_limit_req", "rate": "10r/s", "burst": 5, "nodelay": true}' \
    "$work/nginx-a/access.log" "$work/nginx-b/access.log" || status=1
fi

# 4. Load: hey's 8 concurrent workers at 40 requests a second each on one key against one nginx,
# rate=100r/s burst=20 nodelay: several requests in most milliseconds.
if want nginx-load; then
  start_nginx nginx-load "${ports[5]}" 100r/s "burst=20 nodelay"
  hey -z "$((seconds / 4 + 1))s" -c 8 -q 40 -H "X-Key: key-00" "http://127.0.0.1:${ports[5]}/" >"$work/hey.txt"
  echo "nginx-load: sent $(grep -A3 'Status code distribution' "$work/hey.txt" | grep responses | tr -s ' ' | tr '\n' ';')"
  stop_all
  compare nginx-load 1 "$load_floor" '{"name": "nginx_limit_req", "rate": "100r/s", "burst": 20, "nodelay": true}' \
    "$work/nginx-load/access.log" || status=1
fi

# The stick-table frontend of the HAProxy runs: track the key, deny above 10 in http_req_rate(1s).
haproxy_frontend() { # PORT [STICK_TABLE_PEERS]
  cat <<EOF
frontend fe
  bind 127.0.0.1:$1
  log-format "%Ts.%ms %ST \"%[capture.req.hdr(0)]\" %fp"
  http-request capture req.hdr(x-key) len 32
  stick-table type string len 32 size 100k expire 30s store http_req_rate(1s) ${2:-}
  http-request track-sc0 req.hdr(x-key)
  http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }
  http-request return status 200 content-type text/plain string ok
EOF
}

# 5. One HAProxy; six keys at 9 a second (near the threshold: the sliding estimate decides).
if want haproxy-one; then
  start_haproxy haproxy-one "$(haproxy_frontend "${ports[6]}")"
  wait_port "${ports[6]}"
  echo "haproxy-one: sent $(drive 9 "127.0.0.1:${ports[6]}")"
  stop_all
  compare haproxy-one 1 "$floor" '{"name": "haproxy_stick_table", "http_req_rate": "1s", "sc_http_req_rate_gt": 10}' \
    "$work/haproxy-one/access.log" || status=1
fi

# 6. Two HAProxy with peers, the driver alternating between them: the table replicated.
if want haproxy-peers; then
  peers="peers mesh
    peer hap-a 127.0.0.1:${ports[7]}
    peer hap-b 127.0.0.1:${ports[8]}"
  start_haproxy hap-a "$peers
  $(haproxy_frontend "${ports[9]}" "peers mesh")"
  start_haproxy hap-b "$peers
  $(haproxy_frontend "${ports[10]}" "peers mesh")"
  wait_port "${ports[9]}"
  wait_port "${ports[10]}"
  sleep 6 # the peers connect (a refused first attempt is retried 5 s later)
  echo "haproxy-peers: sent $(drive 9 "127.0.0.1:${ports[9]}" "127.0.0.1:${ports[10]}")"
  stop_all
  compare haproxy-peers 2 "$peers_floor" '{"name": "haproxy_stick_table", "http_req_rate": "1s", "sc_http_req_rate_gt": 10, "peers": true}' \
    "$work/hap-a/access.log" "$work/hap-b/access.log" || status=1
fi
exit $status
