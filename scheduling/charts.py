"""Plotly figures of scheduling data, built from plain lists and dicts (no models, no requests)."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

PROPOSED_COLOUR = "#2457d6"
CURRENT_COLOUR = "#9aa3b2"
OVER_CAPACITY_COLOUR = "#c0262d"
GRID_COLOUR = "rgba(128, 128, 128, 0.25)"


def split_figure(
    clusters: Sequence[str],
    proposed: Sequence[int],
    current: Sequence[int] | None = None,
    *,
    proposed_label: str = "proposed",
    current_label: str = "now",
    over_capacity: Sequence[bool] | None = None,
) -> go.Figure:
    """Replicas per cluster as horizontal bars: the proposed split, and the current one beside it if known.

    Bars of clusters whose share exceeds their capacity are drawn in the warning colour.
    """
    # plotly reads tags such as <a href> and <b> in text; escaped, a name is drawn exactly as written.
    names = [html.escape(name, quote=False) for name in clusters]
    colours = [
        OVER_CAPACITY_COLOUR if flag else PROPOSED_COLOUR for flag in (over_capacity or [False] * len(names))
    ]
    traces = []
    if current is not None:
        traces.append(
            go.Bar(
                name=current_label,
                y=names,
                x=list(current),
                orientation="h",
                marker={"color": CURRENT_COLOUR},
                text=[str(v) for v in current],
                textposition="auto",
                hovertemplate="%{y}: %{x}<extra>" + current_label + "</extra>",
            )
        )
    traces.append(
        go.Bar(
            name=proposed_label,
            y=names,
            x=list(proposed),
            orientation="h",
            marker={"color": colours},
            text=[str(v) for v in proposed],
            textposition="auto",
            hovertemplate="%{y}: %{x}<extra>" + proposed_label + "</extra>",
        )
    )
    top = max([1, *proposed, *(current or [])])
    # The layout goes in with the traces: update_layout would cost several milliseconds per preview.
    layout = dict(
        barmode="group",
        height=max(140, 56 * len(names) + 60),
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        showlegend=current is not None,
        legend={"orientation": "h", "y": -0.2},
        xaxis={
            "range": [0, top * 1.1],
            "dtick": max(1, top // 10) if top > 10 else 1,
            "title": None,
            "gridcolor": GRID_COLOUR,  # visible on light and dark backgrounds alike
        },
        yaxis={"autorange": "reversed", "automargin": True},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        uniformtext={"minsize": 10, "mode": "hide"},
    )
    return go.Figure(traces, layout=layout)


def figure_data(fig: go.Figure) -> dict[str, Any]:
    """The figure as plain data, for the page to pass to app.js with ``json_script``."""
    return json.loads(fig.to_json())
