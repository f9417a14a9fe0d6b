"""Benchmark: per-create latency of a Deployment (with its pods) as one simulated cluster fills up.

Times the Nth create (median of five from there) for each N given, by default 1 100 200 500 1000:
python bench/bench_membersim_objects.py [N ...]
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from membersim import ClusterSpec, Simulator

CHECKPOINTS = (1, 100, 200, 500, 1000)
SAMPLES = 5
RATIO_TARGET = 3.0


def deployment(name: str) -> bytes:
    labels = {"app": name}
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx:1.27",
                            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
                        }
                    ]
                },
            },
        },
    }
    return json.dumps(body).encode()


def create(endpoint: str, name: str) -> float:
    """Seconds one POST of a Deployment takes (the controller places its pods before it returns)."""
    request = urllib.request.Request(
        endpoint + "/apis/apps/v1/namespaces/default/deployments",
        data=deployment(name),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
    return time.perf_counter() - started


def checkpoints(args: list[str]) -> tuple[int, ...] | None:
    """Deployment numbers to time, ascending; None when an argument is not a positive integer."""
    try:
        counts = tuple(sorted({int(a) for a in args}))
    except ValueError:
        return None
    if any(c < 1 for c in counts):
        return None
    return counts or CHECKPOINTS


def main() -> int:
    wanted = checkpoints(sys.argv[1:])
    if wanted is None:
        print("bench_membersim_objects: arguments must be positive integers (deployment numbers)")
        return 2
    spec = ClusterSpec(name="member-1", nodes=20, node_pods=200)
    with Simulator([spec]) as simulator:
        endpoint = simulator.endpoint(spec.name)
        existing = 0
        results: dict[int, float] = {}
        for checkpoint in wanted:
            while existing < checkpoint - 1:
                create(endpoint, f"fill-{existing}")
                existing += 1
            samples = []
            for _ in range(SAMPLES):
                samples.append(create(endpoint, f"fill-{existing}"))
                existing += 1
            results[checkpoint] = sorted(samples)[SAMPLES // 2]
    first = results[wanted[0]]
    for checkpoint, seconds in results.items():
        ratio = seconds / first
        print(f"create #{checkpoint:<5} {seconds * 1000:7.2f} ms ({ratio:5.2f}x the first)")
    worst = max(results.values()) / first
    ok = worst < RATIO_TARGET
    verdict = "within target" if ok else "OUTSIDE TARGET"
    print(f"worst ratio {worst:.2f}x (target < {RATIO_TARGET:.0f}x): {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
