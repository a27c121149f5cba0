#!/usr/bin/env python3
"""Writes api-sample.log, the request log scenarios/replay-nginx.json replays (docs/replay.md).

The log is synthetic, made by this script with a fixed seed (the same bytes every time): one minute
of an API behind three nginx upstreams, in the nginx log_format the scenario names, with the
verdicts a per-instance limiter would have logged. "Production" here is three app instances, each
with its own in-process fixed-window counter of 10 requests per second per API key (the lesson's
anti-pattern, rlsim's in_memory), reached round-robin; a request over its instance's count is
answered 429. Two lines are deliberately malformed (a line cut short, as by a log rotation in the
middle of a write), so that the replay reports them with their line numbers.

Usage: python3 scenarios/logs/make-api-sample.py   (rewrites scenarios/logs/api-sample.log)
"""
import os
import random
import time

START_S = 1765000000  # 2025-12-06T05:46:40Z, a whole second: the scenario's replay.from
SPAN_S = 60
LIMIT = 10  # per key, per instance, per second
UPSTREAMS = ["10.0.1.1:8080", "10.0.1.2:8080", "10.0.1.3:8080"]
ENDPOINTS = ["/v1/search", "/v1/items", "/v1/orders", "/v1/profile"]


def arrivals(rng, rate_per_s, start_s, end_s):
    t = start_s
    while True:
        t += rng.expovariate(rate_per_s)
        if t >= end_s:
            return
        yield t


def requests(rng):
    out = []
    # 120 light clients at 0.25 req/s each, one scraper at 45 req/s for 20 s, and a batch job that
    # sends bursts of 25 requests within 0.4 s every 10 s.
    for i in range(120):
        key = f"key-{i:03d}"
        ip = f"198.51.100.{i + 1}"
        for t in arrivals(rng, 0.25, 0, SPAN_S):
            out.append((t, key, ip, rng.choice(ENDPOINTS)))
    for t in arrivals(rng, 45.0, 20, 40):
        out.append((t, "key-scraper", "203.0.113.7", "/v1/search"))
    for burst in range(0, SPAN_S, 10):
        for _ in range(25):
            out.append((burst + 5 + rng.uniform(0, 0.4), "key-batch", "203.0.113.9", "/v1/orders"))
    out.sort()
    return out


def main():
    rng = random.Random(33)
    counts = {}  # (upstream, key, second) -> admitted
    lines = []
    for n, (t, key, ip, endpoint) in enumerate(requests(rng)):
        msec_ms = START_S * 1000 + int(t * 1000)
        upstream = UPSTREAMS[n % len(UPSTREAMS)]
        slot = (upstream, key, msec_ms // 1000)
        admitted = counts.get(slot, 0) < LIMIT
        if admitted:
            counts[slot] = counts.get(slot, 0) + 1
        status = 200 if admitted else 429
        size = 512 + rng.randrange(2048) if admitted else 17
        local = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(msec_ms // 1000))
        lines.append(f'{ip} - [{local}] "GET {endpoint}?page={rng.randrange(9)} HTTP/1.1" '
                     f'{status} {size} {msec_ms // 1000}.{msec_ms % 1000:03d} "{key}" {upstream}')
    # Two lines cut short mid-write.
    lines[700] = lines[700][:41]
    lines[1700] = lines[1700][:12]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api-sample.log")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"{path}: {len(lines)} lines")


if __name__ == "__main__":
    main()
