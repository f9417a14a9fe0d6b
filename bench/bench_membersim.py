"""Benchmark: 100 simulated clusters of 100 nodes in one process; start time and RSS against targets."""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from membersim import ClusterSpec, Simulator

CLUSTERS = 100
NODES = 100
START_TARGET_S = 10.0
RSS_TARGET_MIB = 1024.0


def resident_mib() -> float:
    """Current resident set size of this process, from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


def main() -> int:
    specs = [
        ClusterSpec(
            name=f"member-{i:03d}",
            nodes=NODES,
            region=f"region-{i % 5}",
            zones=["a", "b", "c"],
            ssd_nodes=10,
            pod_cidr="10.0.0.0/8",
        )
        for i in range(CLUSTERS)
    ]
    started = time.perf_counter()
    simulator = Simulator(specs).start()
    elapsed = time.perf_counter() - started
    try:
        name = specs[-1].name
        with urllib.request.urlopen(simulator.endpoint(name) + "/api/v1/nodes", timeout=10) as response:
            served = len(json.loads(response.read())["items"])
        rss = resident_mib()
    finally:
        simulator.stop()
    print(f"membersim: {CLUSTERS} clusters x {NODES} nodes ({served} nodes served by the last one)")
    print(f"start {elapsed:.2f} s (target {START_TARGET_S:.0f} s, {elapsed / START_TARGET_S:.2f}x)")
    print(f"rss {rss:.0f} MiB (target {RSS_TARGET_MIB:.0f} MiB, {rss / RSS_TARGET_MIB:.2f}x)")
    ok = served == NODES and elapsed < START_TARGET_S and rss < RSS_TARGET_MIB
    print("within targets" if ok else "OUTSIDE TARGETS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
