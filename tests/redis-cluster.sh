#!/usr/bin/env bash
# A private 3-master Redis Cluster on loopback for the real-cluster tests (docs/real-redis.md).
#   tests/redis-cluster.sh start DIR [PORT...]   start it (state in DIR), wait for cluster_state:ok
#   tests/redis-cluster.sh stop DIR [PORT...]    shut the nodes down, remove DIR
# Ports default to 7101 7102 7103 (RLSIM_TEST_CLUSTER_PORTS overrides them). On success `start`
# prints the seed list for --redis-cluster / RLSIM_REDIS_CLUSTER ("127.0.0.1:7101,...").
set -euo pipefail
action=${1:?usage: redis-cluster.sh start|stop DIR [PORT...]}
dir=${2:?usage: redis-cluster.sh start|stop DIR [PORT...]}
shift 2
if [ $# -gt 0 ]; then
  ports=("$@")
else
  read -r -a ports <<<"${RLSIM_TEST_CLUSTER_PORTS:-7101 7102 7103}"
fi

stop() {
  for port in "${ports[@]}"; do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  rm -rf "$dir"
}

case "$action" in
  start)
    mkdir -p "$dir"
    seeds=()
    for port in "${ports[@]}"; do
      mkdir -p "$dir/$port"
      redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
        --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout 5000 \
        --save "" --appendonly no --dir "$dir/$port" --daemonize yes \
        --pidfile "$dir/$port/redis.pid" --logfile "$dir/$port/redis.log"
      seeds+=("127.0.0.1:$port")
    done
    for port in "${ports[@]}"; do
      for _ in $(seq 50); do
        redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
        sleep 0.1
      done
    done
    redis-cli --cluster create "${seeds[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 ||
      { cat "$dir/create.log" >&2; stop; exit 1; }
    for port in "${ports[@]}"; do
      ok=
      for _ in $(seq 100); do
        if redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
          ok=1
          break
        fi
        sleep 0.1
      done
      [ -n "$ok" ] || { echo "redis-cluster.sh: node $port never reached cluster_state:ok" >&2; stop; exit 1; }
    done
    (IFS=,; echo "${seeds[*]}")
    ;;
  stop)
    stop
    ;;
  *)
    echo "usage: redis-cluster.sh start|stop DIR [PORT...]" >&2
    exit 2
    ;;
esac
