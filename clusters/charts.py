"""Health panel figures built with plotly from plain sample dicts (no database, no request)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import gettext as _

Sample = dict[str, Any]
OK, ERR, ACCENT, WARN = "#1b7f3b", "#c0262d", "#2457d6", "#a86400"


# Faint grey grid on a transparent plot: readable on the light and the dark page alike.
GRID = {"gridcolor": "rgba(128,128,128,0.25)", "zerolinecolor": "rgba(128,128,128,0.4)"}
# A few upright time ticks without plotly's second line of dates, which collides with the legend.
TIME_AXIS = {
    **GRID,
    "tickformat": "%H:%M:%S",
    "hoverformat": "%Y-%m-%d %H:%M:%S",
    "nticks": 4,
    "tickangle": 0,
}


def _layout(title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    xaxis = {**TIME_AXIS, **extra.pop("xaxis", {})}
    yaxis = {**GRID, "title": {"text": y_title}, "rangemode": "tozero", **extra.pop("yaxis", {})}
    return {
        "title": {"text": title, "font": {"size": 14}},
        "margin": {"l": 48, "r": 12, "t": 36, "b": 32},
        "height": 240,
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": xaxis,
        "yaxis": yaxis,
        "legend": {"orientation": "h", "y": -0.25},
        "hovermode": "x unified",
        **extra,
    }


def _share(part: float | None, whole: float | None) -> float | None:
    if part is None or not whole:
        return None
    return round(100.0 * part / whole, 1)


def utilisation_figure(samples: Sequence[Sample]) -> go.Figure:
    """CPU and memory in use (metrics.k8s.io) and requested (allocated), as % of allocatable."""
    at = [s["at"] for s in samples]
    traces = [
        (_("CPU used"), "cpu_usage", "cpu_allocatable", ACCENT, "solid"),
        (_("Memory used"), "memory_usage", "memory_allocatable", WARN, "solid"),
        (_("CPU requested"), "cpu_allocated", "cpu_allocatable", ACCENT, "dot"),
        (_("Memory requested"), "memory_allocated", "memory_allocatable", WARN, "dot"),
    ]
    figure = go.Figure(layout=_layout(_("CPU and memory utilisation"), "%", yaxis={"range": [0, 100]}))
    for name, part, whole, colour, dash in traces:
        figure.add_trace(
            go.Scatter(
                x=at,
                y=[_share(s[part], s[whole]) for s in samples],
                name=name,
                mode="lines",
                line={"color": colour, "dash": dash},
                connectgaps=False,
            )
        )
    return figure


def _count_axis(values: Sequence[float | None]) -> dict[str, Any]:
    """Whole-number ticks; one per unit when the counts are small (else plotly picks the step)."""
    axis: dict[str, Any] = {"rangemode": "tozero", "tickformat": ",d"}
    if max((v or 0 for v in values), default=0) < 6:
        axis["dtick"] = 1
    return axis


def nodes_and_pods_figure(samples: Sequence[Sample]) -> go.Figure:
    at = [s["at"] for s in samples]
    figure = go.Figure(layout=_layout(_("Ready nodes and pods"), _("count")))
    figure.add_trace(
        go.Scatter(x=at, y=[s["nodes_ready"] for s in samples], name=_("Ready nodes"), line={"color": OK})
    )
    figure.add_trace(
        go.Scatter(
            x=at, y=[s["nodes_total"] for s in samples], name=_("Nodes"), line={"color": OK, "dash": "dot"}
        )
    )
    figure.add_trace(
        go.Scatter(x=at, y=[s["pods"] for s in samples], name=_("Pods"), line={"color": ACCENT}, yaxis="y2")
    )
    figure.update_layout(
        yaxis={**GRID, "title": {"text": _("count")}, **_count_axis([s["nodes_total"] for s in samples])},
        yaxis2={
            **_count_axis([s["pods"] for s in samples]),
            "overlaying": "y",
            "side": "right",
            "title": {"text": _("pods")},
        },
    )
    return figure


def latency_figure(samples: Sequence[Sample]) -> go.Figure:
    figure = go.Figure(layout=_layout(_("Probe latency"), "ms"))
    figure.add_trace(
        go.Scatter(
            x=[s["at"] for s in samples],
            y=[s["latency_ms"] for s in samples],
            name=_("/readyz latency"),
            mode="lines+markers",
            marker={"size": 4},
            line={"color": ACCENT},
        )
    )
    return figure


def ready_timeline_figure(samples: Sequence[Sample], start: datetime, end: datetime) -> go.Figure:
    """The Ready condition over the window: green where Ready, red where not, grey where unknown."""
    figure = go.Figure(
        layout=_layout(
            _("Ready condition"),
            "",
            height=120,
            yaxis={"visible": False, "range": [0, 1]},
            xaxis={"range": [start, end]},
            showlegend=False,
            bargap=0,
        )
    )
    spans: list[tuple[datetime, datetime, str]] = []
    for index, sample in enumerate(samples):
        state = "ready" if sample["ready"] >= 0.5 else "not-ready"
        until = samples[index + 1]["at"] if index + 1 < len(samples) else end
        if spans and spans[-1][2] == state:
            spans[-1] = (spans[-1][0], until, state)
        else:
            spans.append((sample["at"], until, state))
    colours = {"ready": OK, "not-ready": ERR}
    names = {"ready": _("Ready"), "not-ready": _("NotReady")}
    for begin, until, state in spans:
        figure.add_trace(
            go.Scatter(
                x=[begin, until, until, begin, begin],
                y=[0, 0, 1, 1, 0],
                fill="toself",
                mode="lines",
                line={"width": 0},
                fillcolor=colours[state],
                name=names[state],
                hoverinfo="name",
            )
        )
    return figure
