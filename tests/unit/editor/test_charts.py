"""The split chart: proposed bars, the current split beside them, and over-capacity bars marked."""

from __future__ import annotations

import pytest

from scheduling.charts import OVER_CAPACITY_COLOUR, PROPOSED_COLOUR, split_figure


def test_the_proposed_split_is_one_horizontal_bar_per_cluster():
    fig = split_figure(["beijing", "shanghai"], [7, 3]).to_dict()
    (bars,) = fig["data"]
    assert bars["orientation"] == "h"
    assert list(bars["y"]) == ["beijing", "shanghai"]
    assert list(bars["x"]) == [7, 3]
    assert list(bars["text"]) == ["7", "3"]
    assert fig["layout"]["showlegend"] is False


def test_the_current_split_is_drawn_beside_the_proposed_one_with_a_legend():
    fig = split_figure(
        ["beijing", "shanghai"], [8, 3], [7, 3], proposed_label="proposed", current_label="now"
    ).to_dict()
    assert [(t["name"], list(t["x"])) for t in fig["data"]] == [("now", [7, 3]), ("proposed", [8, 3])]
    assert fig["layout"]["barmode"] == "group"
    assert fig["layout"]["showlegend"] is True


def test_bars_of_clusters_over_capacity_use_the_warning_colour():
    fig = split_figure(["beijing", "shanghai"], [7, 3], over_capacity=[True, False]).to_dict()
    assert list(fig["data"][0]["marker"]["color"]) == [OVER_CAPACITY_COLOUR, PROPOSED_COLOUR]


def test_the_axis_leaves_room_above_the_largest_bar():
    fig = split_figure(["a"], [40], [50]).to_dict()
    assert fig["layout"]["xaxis"]["range"] == [0, pytest.approx(55)]


def test_names_are_escaped_for_plotly_which_reads_tags_in_text():
    fig = split_figure(["<a href=https://example.com>x</a>", "b&b"], [1, 1]).to_dict()
    assert list(fig["data"][0]["y"]) == ["&lt;a href=https://example.com&gt;x&lt;/a&gt;", "b&amp;b"]
