"""Prometheus' text format (0.0.4) written series by series: a series' labels are escaped once for all
its bucket lines, where prometheus_client validates and escapes every label of every line (at 1,000
clusters that was most of a scrape). The bytes are those prometheus_client.generate_latest writes."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.utils import floatToGoString

from metrics.catalogue import CLUSTER_GAUGES, COUNTER, RECORDED
from observability.expr import Labels
from observability.values import cluster_gauges, counter_values, histogram_values


def _text(value: str) -> str:
    return value.replace("\\", r"\\").replace("\n", r"\n")


def _label_value(value: str) -> str:
    return _text(value).replace('"', r"\"")


def _pairs(labels: Labels, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The series' labels by name (the metric's own names only, as the family builders take them)."""
    values = dict(labels)
    return [(name, values[name]) for name in names]


def _braces(pairs: list[tuple[str, str]]) -> str:
    if not pairs:
        return ""
    return "{" + ",".join(f'{key}="{_label_value(value)}"' for key, value in sorted(pairs)) + "}"


def _header(name: str, help_text: str, kind: str) -> str:
    return f"# HELP {name} {_text(help_text)}\n# TYPE {name} {kind}\n"


def lines() -> Iterator[str]:
    """Every family of /metrics: the cluster gauges, then the recorded counters and histograms."""
    gauges = cluster_gauges()
    for metric in CLUSTER_GAUGES:
        yield _header(metric.name, metric.help, "gauge")
        for labels, value in sorted(gauges[metric.name].items()):
            yield f"{metric.name}{_braces(_pairs(labels, metric.labels))} {floatToGoString(value)}\n"
    for metric in RECORDED:
        if metric.kind == COUNTER:
            name = f"{metric.family}_total"
            yield _header(name, metric.help, "counter")
            for labels, value in sorted(counter_values(metric).items()):
                yield f"{name}{_braces(_pairs(labels, metric.labels))} {floatToGoString(value)}\n"
            continue
        yield _header(metric.name, metric.help, "histogram")
        for labels, histogram in sorted(histogram_values(metric).items()):
            pairs = sorted(_pairs(labels, metric.labels))
            before = "".join(f'{key}="{_label_value(value)}",' for key, value in pairs if key < "le")
            after = "".join(f',{key}="{_label_value(value)}"' for key, value in pairs if key > "le")
            for bound, count in histogram.buckets:  # repr() of a float or "+Inf": nothing to escape
                yield f'{metric.name}_bucket{{{before}le="{bound}"{after}}} {floatToGoString(count)}\n'
            plain = _braces(pairs)
            yield f"{metric.name}_count{plain} {floatToGoString(histogram.count)}\n"
            yield f"{metric.name}_sum{plain} {floatToGoString(histogram.sum)}\n"


def exposition() -> bytes:
    return "".join(lines()).encode("utf-8")
