#!/usr/bin/env python3
"""Replays a real product's access logs through rlsim's model of it and compares the decisions
request by request (tests/real-products.sh, docs/products.md#validated-against-the-real-products).

The logs' lines are `<unix seconds.ms> <status> "<key>" <port>` (nginx: $msec $status
"$http_x_key" $server_port; HAProxy: %Ts.%ms %ST "%[capture.req.hdr(0)]" %fp). They are merged in
time order into WORK/NAME.log, replayed by a scenario written to WORK/NAME.json (one instance per
port, each request pinned to the instance that served it), and rlsim's decision trace is joined
with the log line by line. Prints one summary line, rlsim's own verdict line, and each
disagreement with the key's previous requests (the milliseconds that decide it), and exits 1 when
the agreement is below FLOOR.
Usage: compare.py RLSIM WORK NAME INSTANCES FLOOR STRATEGY_JSON LOG [LOG...]
"""
import json
import subprocess
import sys


def read_logs(paths):
    lines = []
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                # Key "-": wait_port's bare connection (HAProxy logs it, 400).
                if len(parts) == 4 and parts[1].isdigit() and parts[2] != '"-"':
                    lines.append((float(parts[0]), int(parts[1]), parts[2].strip('"'), parts[3]))
    lines.sort(key=lambda line: line[0])  # stable: a log's own order within one millisecond
    return lines


def write_scenario(work, name, lines, instances, strategy):
    with open(f"{work}/{name}.log", "w") as f:
        for t, status, key, port in lines:
            # A name, not the port's number: a number would be read as an instance id.
            f.write(f'{t:.3f} {status} "{key}" port-{port}\n')
    seconds = int(lines[-1][0] - lines[0][0]) + 3
    scenario = {
        "name": name,
        "seed": 1,
        "duration": f"{seconds}s",
        "limits": [{"name": "per_key", "key": "user", "limit": 10, "window": "1s"}],
        "instances": {"count": instances},
        "traffic": [{"name": "real", "replay": {
            "file": f"{name}.log", "format": "nginx",
            "log_format": '$msec $status "$http_x_key" $server_port',
            "fields": {"user": "http_x_key", "instance": "server_port", "verdict": "status"},
            "max_bad_lines": 0}}],
        "strategies": [strategy],
    }
    with open(f"{work}/{name}.json", "w") as f:
        json.dump(scenario, f, indent=1)


def nginx_margins(lines, strategy):
    """For nginx_limit_req: per line, the excess the model computes (milli-requests, the C
    source's integer arithmetic) and how many milliseconds of drain it is from burst, so that a
    disagreement shows whether it sits on a millisecond boundary."""
    rate_text = strategy.get("rate", "10r/s")
    rate = int(rate_text[:-3]) * 1000 // (60 if rate_text.endswith("r/m") else 1)
    burst = strategy.get("burst", 0) * 1000
    nodes, margins = {}, []
    for t, _, key, port in lines:
        now = round(t * 1000)
        node = nodes.get((port, key))
        excess = 0 if node is None else max(0, node[0] - rate * max(0, now - node[1]) // 1000 + 1000)
        if excess <= burst:
            nodes[(port, key)] = (excess, now)
        margins.append((excess, (excess - burst) * 1000 / rate))
    return margins


def main():
    rlsim, work, name, instances, floor = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    strategy = json.loads(sys.argv[6])
    lines = read_logs(sys.argv[7:])
    if not lines:
        sys.exit(f"{name}: the logs have no request lines")
    write_scenario(work, name, lines, instances, strategy)
    run = subprocess.run([rlsim, "run", f"{work}/{name}.json", "--trace", f"{work}/{name}.trace.jsonl",
                          "--out", f"{work}/{name}-report"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{name}: rlsim run failed ({run.returncode}): {run.stderr.strip()}")
    verdict_line = next((l for l in run.stdout.splitlines() if "production's verdicts" in l), "")
    decisions = {}
    seen = {}  # the count the strategy saw (haproxy_stick_table: its rate minus this request)
    with open(f"{work}/{name}.trace.jsonl") as f:
        for line in f:
            d = json.loads(line)
            decisions[d["request"]] = d["allowed"]
            seen[d["request"]] = d["observed_count"]
    ids = sorted(decisions)
    if len(ids) != len(lines):
        sys.exit(f"{name}: {len(lines)} log lines but {len(ids)} decisions")
    margins = nginx_margins(lines, strategy) if strategy["name"] == "nginx_limit_req" else None
    previous = {}  # key -> times of its earlier requests that the product admitted
    disagreements = []
    boundary = 0  # nginx: disagreements whose excess is within one millisecond of drain of burst
    for index, ((t, status, key, port), request) in enumerate(zip(lines, ids)):
        real_admitted = status != 429
        if real_admitted != decisions[request]:
            before = [round((t - p) * 1000) for p in previous.get(key, [])[-3:]]
            disagreements.append(f"  {t:.3f} {key} port {port}: real {status}, model "
                                 f"{'admitted' if decisions[request] else 'denied'}; the key's last "
                                 f"admitted requests {before} ms before"
                                 + (f"; model excess {margins[index][0]}, {margins[index][1]:+.0f} ms of "
                                    "drain from burst" if margins else "")
                                 + (f"; model rate {seen[request] + 1}"
                                    if strategy["name"] == "haproxy_stick_table" and seen[request] is not None
                                    else ""))
            if margins and 0 <= margins[index][1] <= 1:
                boundary += 1
        if real_admitted:
            previous.setdefault(key, []).append(t)
    total = len(lines)
    denied = sum(1 for line in lines if line[1] == 429)
    agree = total - len(disagreements)
    print(f"{name}: {total} requests ({denied} denied by the real product), {agree} agree "
          f"({100.0 * agree / total:.2f}%), {len(disagreements)} disagree")
    print(f"  rlsim: {verdict_line.strip()}")
    if margins is not None and disagreements:
        after = ("; the others each follow one (the key's state one request apart)"
                 if 2 * boundary == len(disagreements) else "")
        print(f"  {boundary} of the {len(disagreements)} at a millisecond boundary (the model's excess 0 or "
              f"1 ms of drain above burst){after}")
    for line in disagreements[:20]:
        print(line)
    if agree / total < floor:
        sys.exit(f"{name}: agreement {agree / total:.4f} below {floor}")


if __name__ == "__main__":
    main()
