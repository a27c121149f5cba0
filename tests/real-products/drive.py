#!/usr/bin/env python3
"""Sends a planned, seeded request schedule to HTTP servers on loopback (tests/real-products.sh).

Each request carries its key in the X-Key header and goes out at its planned offset from the
start (late ones at once); one keep-alive connection per target keeps the send time close to the
plan. The plan: `keys` keys, each a Poisson stream at `rate` requests a second for `seconds`,
from Random(seed), spread round-robin over the targets (host:port). Prints the statuses seen.
Usage: drive.py SEED SECONDS KEYS RATE TARGET [TARGET...]
"""
import http.client
import random
import sys
import time
from collections import Counter


def plan(seed, seconds, keys, rate):
    rng = random.Random(seed)
    sends = []
    for k in range(keys):
        t = rng.uniform(0, 1.0 / rate)
        while t < seconds:
            sends.append((t, f"key-{k:02d}"))
            t += rng.expovariate(rate)
    sends.sort()
    return sends


def main():
    seed, seconds, keys, rate = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    targets = sys.argv[5:]
    conns = []
    for target in targets:
        host, port = target.rsplit(":", 1)
        conns.append(http.client.HTTPConnection(host, int(port), timeout=5))
    statuses = Counter()
    start = time.monotonic() + 0.05
    for i, (at, key) in enumerate(plan(seed, seconds, keys, rate)):
        wait = start + at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        conn = conns[i % len(conns)]
        # A connection per request: HAProxy logs the accept date (%Ts.%ms), the request's own time
        # only on a fresh connection.
        conn.request("GET", "/", headers={"X-Key": key, "Connection": "close"})
        response = conn.getresponse()
        response.read()
        statuses[response.status] += 1
    print(" ".join(f"{status}:{count}" for status, count in sorted(statuses.items())))


if __name__ == "__main__":
    main()
