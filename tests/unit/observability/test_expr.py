"""The rule expressions evaluate over a table of values the way Prometheus evaluates their PromQL."""

import math

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import email_url_parts, env_duration
from observability.expr import Arithmetic, Compare, Increase, Metric, SumBy, format_duration, labels_of
from observability.rules import fill_template


class Table:
    def __init__(self, instant=None, increases=None):
        self.instants = instant or {}
        self.increases = increases or {}
        self.windows = []

    def instant(self, series):
        return {labels_of(k): v for k, v in self.instants.get(series, [])}

    def increase(self, series, seconds):
        self.windows.append(seconds)
        return {labels_of(k): v for k, v in self.increases.get(series, [])}


def c(name):
    return {"member_cluster": name}


def test_an_equality_comparison_keeps_only_the_matching_clusters():
    source = Table({"cluster_ready_state": [(c("beijing"), 1), (c("shanghai"), 0)]})
    result = Compare(Metric("cluster_ready_state"), "==", 0).evaluate(source)
    assert result == {labels_of(c("shanghai")): 0}


def test_a_ratio_matches_series_by_labels_and_skips_clusters_missing_on_one_side():
    source = Table(
        {
            "used": [(c("beijing"), 6), (c("shanghai"), 1), (c("guangzhou"), 3)],
            "total": [(c("beijing"), 8), (c("shanghai"), 8)],
        }
    )
    percent = Arithmetic(Arithmetic(Metric("used"), "/", Metric("total")), "*", 100)
    assert percent.promql() == "(used / total) * 100"
    assert Compare(percent, ">", 70).evaluate(source) == {labels_of(c("beijing")): 75.0}


def test_dividing_zero_by_zero_never_fires_but_something_by_zero_does():
    source = Table({"used": [(c("a"), 0), (c("b"), 2)], "total": [(c("a"), 0), (c("b"), 0)]})
    result = Compare(Arithmetic(Metric("used"), "/", Metric("total")), ">", 0.8).evaluate(source)
    assert list(result) == [labels_of(c("b"))]
    assert math.isinf(result[labels_of(c("b"))])


def test_a_summed_increase_groups_by_the_given_labels_and_honours_matchers():
    rows = [
        ({"result": "error", "member_cluster": "beijing"}, 2),
        ({"result": "error", "member_cluster": "beijing", "x": "y"}, 1),
        ({"result": "success", "member_cluster": "beijing"}, 9),
        ({"result": "error", "member_cluster": "shanghai"}, 0),
    ]
    source = Table(increases={"applies_count": rows})
    expr = Compare(SumBy(Increase("applies_count", 600, {"result": "error"}), ("member_cluster",)), ">", 0)
    assert expr.promql() == 'sum by (member_cluster) (increase(applies_count{result="error"}[10m])) > 0'
    assert expr.evaluate(source) == {labels_of(c("beijing")): 3}
    assert source.windows == [600]


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0s"), (30, "30s"), (300, "5m"), (90, "1m30s"), (3600, "1h"), (90000, "1d1h")]
)
def test_durations_render_the_prometheus_way_and_read_back(seconds, text, monkeypatch):
    assert format_duration(seconds) == text
    monkeypatch.setenv("SOME_FOR", text)
    assert env_duration("SOME_FOR", "1m") == seconds


def test_a_bad_duration_names_the_variable(monkeypatch):
    monkeypatch.setenv("SOME_FOR", "5 minutes")
    with pytest.raises(ImproperlyConfigured, match="SOME_FOR"):
        env_duration("SOME_FOR", "1m")


@pytest.mark.parametrize(
    ("text", "reason"),
    [("300", "a number without a unit"), ("-5m", "whole number of seconds, 0 or more"), ("1.5s", "whole")],
)
def test_a_duration_setting_is_a_go_duration_of_whole_seconds(monkeypatch, text, reason):
    monkeypatch.setenv("SOME_FOR", text)
    with pytest.raises(ImproperlyConfigured, match=reason):
        env_duration("SOME_FOR", "1m")


def test_an_email_url_becomes_django_settings():
    assert email_url_parts("EMAIL_URL", "smtp://ops%40x.cn:p%2Fw@mail.x.cn?tls=1") == (
        "mail.x.cn",
        587,
        "ops@x.cn",
        "p/w",
        True,
        False,
    )
    assert email_url_parts("EMAIL_URL", "smtps://mail.x.cn")[1:] == (465, "", "", False, True)
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL"):
        email_url_parts("EMAIL_URL", "http://mail.x.cn")


def test_annotation_templates_are_filled_with_labels_and_the_value():
    text = fill_template(
        "{{ $labels.member_cluster }} at {{ $value }}% ({{$labels.missing}})", c("beijing"), 87.55555
    )
    assert text == "beijing at 87.56% ()"
