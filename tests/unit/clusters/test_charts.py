"""Health panel figures from plain samples: utilisation as % of allocatable, gaps kept, Ready spans."""

from datetime import UTC, datetime, timedelta

from clusters.charts import latency_figure, nodes_and_pods_figure, ready_timeline_figure, utilisation_figure

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def sample(second, ready=1.0, cpu_usage=2000.0, latency=12.0):
    return {
        "at": T0 + timedelta(seconds=second),
        "ready": ready,
        "latency_ms": latency,
        "nodes_total": 4,
        "nodes_ready": 3,
        "pods": 17,
        "cpu_allocatable": 8000.0,
        "cpu_allocated": 4000.0,
        "cpu_usage": cpu_usage,
        "memory_allocatable": 1024.0,
        "memory_allocated": 256.0,
        "memory_usage": 512.0,
    }


def test_utilisation_is_a_percentage_of_allocatable_with_gaps_where_metrics_are_missing():
    data = utilisation_figure([sample(0), sample(10, cpu_usage=None)]).to_dict()["data"]
    by_name = {trace["name"]: list(trace["y"]) for trace in data}
    assert by_name["CPU used"] == [25.0, None]
    assert by_name["CPU requested"] == [50.0, 50.0]
    assert by_name["Memory used"] == [50.0, 50.0]
    assert by_name["Memory requested"] == [25.0, 25.0]


def test_nodes_pods_and_latency_carry_the_sampled_values():
    nodes = {t["name"]: list(t["y"]) for t in nodes_and_pods_figure([sample(0)]).to_dict()["data"]}
    assert nodes == {"Ready nodes": [3], "Nodes": [4], "Pods": [17]}
    latency = latency_figure([sample(0, latency=7.5), sample(10, latency=None)]).to_dict()["data"][0]
    assert list(latency["y"]) == [7.5, None]


def test_the_ready_timeline_merges_runs_into_coloured_spans_up_to_the_end():
    samples = [sample(0), sample(10), sample(20, ready=0.0), sample(30, ready=0.0), sample(40)]
    end = T0 + timedelta(seconds=60)
    traces = ready_timeline_figure(samples, T0, end).to_dict()["data"]
    spans = [(t["name"], t["x"][0], t["x"][1]) for t in traces]
    assert spans == [
        ("Ready", T0, T0 + timedelta(seconds=20)),
        ("NotReady", T0 + timedelta(seconds=20), T0 + timedelta(seconds=40)),
        ("Ready", T0 + timedelta(seconds=40), end),
    ]


def test_an_empty_series_still_makes_figures():
    for figure in (utilisation_figure([]), nodes_and_pods_figure([]), latency_figure([])):
        assert figure.to_dict()["layout"]["title"]["text"]
    assert ready_timeline_figure([], T0, T0).to_dict()["data"] == []


def test_every_figure_has_a_transparent_plot_faint_grid_and_upright_time_ticks():
    samples = [sample(0), sample(10)]
    figures = [
        utilisation_figure(samples),
        nodes_and_pods_figure(samples),
        latency_figure(samples),
        ready_timeline_figure(samples, T0, T0 + timedelta(minutes=1)),
    ]
    for figure in figures:
        layout = figure.to_dict()["layout"]
        assert layout["plot_bgcolor"] == "rgba(0,0,0,0)"
        assert layout["xaxis"]["gridcolor"] == "rgba(128,128,128,0.25)"
        assert layout["xaxis"]["tickangle"] == 0 and "\n" not in layout["xaxis"]["tickformat"]
    assert figures[0].to_dict()["layout"]["yaxis"]["title"]["text"] == "%"
    assert list(figures[0].to_dict()["layout"]["yaxis"]["range"]) == [0, 100]
