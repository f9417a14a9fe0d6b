"""`kubectl get clusters --show-labels` as plain text: NAME VERSION MODE READY AGE LABELS."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from clusters.models import Cluster

HEADER = ("NAME", "VERSION", "MODE", "READY", "AGE", "LABELS")


def age(seconds: float) -> str:
    """kubectl's short ages: 45s, 12m, 5h, 3d."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit != "d" else 1):
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def show_labels_table(clusters: Iterable[Cluster], now: datetime) -> str:
    rows = [HEADER]
    for c in clusters:
        labels = ",".join(f"{k}={v}" for k, v in sorted(c.labels.items())) or "<none>"
        rows.append(
            (
                c.name,
                c.kubernetes_version or "<unknown>",
                c.sync_mode,
                c.ready,
                age((now - c.created).total_seconds()),
                labels,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = [
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "   " + row[-1]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
