#!/usr/bin/env python3
"""Writes the reference table of docs/products.md from the product scenarios' reports.

For each of reports/products-autoscale, products-redis-stall and products-skew: one row per
strategy with overshoot, excess, false denials, Redis commands and round trips per request and the
added p99, read from report.json. The table replaces what stands between the markers
<!-- products-table:begin --> and <!-- products-table:end --> in docs/products.md, so that
tests/regen-reports.sh keeps it true like every report (and CI fails when it was not committed).
Usage: tests/products-table.py [REPO_ROOT]
"""
import json
import pathlib
import sys

SCENARIOS = [
    ("products-autoscale", "3 -> 30 -> 3 instances"),
    ("products-redis-stall", "Redis blackholed for 30 s"),
    ("products-skew", "one instance's clock 2 s ahead"),
]
BEGIN = "<!-- products-table:begin -->"
END = "<!-- products-table:end -->"


def number(value, digits=2):
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def table(root, scenario, title):
    report = json.loads((root / "reports" / scenario / "report.json").read_text())
    lines = [
        f"**[{scenario}](../scenarios/{scenario}.json)**: {title} "
        f"(seed {report['seed']}, [report](../reports/{scenario}/report.md)).",
        "",
        "| strategy | model | overshoot | excess | false denials | Redis cmd/req | round trips/req | added p99 |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for s in report["strategies"]:
        p99_us = s["latency_us"]["p99"]
        lines.append(
            f"| `{s['label']}` | `{s['name']}` | {s['overshoot']:.2f}x | {number(s['excess'])} | "
            f"{number(s['false_denials'])} | {s['redis_commands_per_request']:.2f} | "
            f"{s['redis_round_trips_per_request']:.2f} | {p99_us / 1000:.1f} ms |"
        )
    return "\n".join(lines)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    doc_path = root / "docs" / "products.md"
    doc = doc_path.read_text()
    begin, end = doc.index(BEGIN), doc.index(END)
    body = "\n\n".join(table(root, name, title) for name, title in SCENARIOS)
    doc = doc[: begin + len(BEGIN)] + "\n" + body + "\n" + doc[end:]
    doc_path.write_text(doc)


if __name__ == "__main__":
    main()
