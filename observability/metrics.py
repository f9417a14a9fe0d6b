"""/metrics: a collector that reads every value from the database at scrape time, in Prometheus text."""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from metrics.catalogue import CLUSTER_GAUGES, COUNTER, RECORDED
from observability.values import cluster_gauges, counter_values, histogram_values


class DatabaseCollector:
    """Builds every family afresh on each scrape, so all processes' records show and nothing is stale."""

    def collect(self) -> Iterator[Metric]:
        gauges = cluster_gauges()
        for metric in CLUSTER_GAUGES:
            family = GaugeMetricFamily(metric.name, metric.help, labels=list(metric.labels))
            for labels, value in sorted(gauges[metric.name].items()):
                family.add_metric([dict(labels)[key] for key in metric.labels], value)
            yield family
        for metric in RECORDED:
            if metric.kind == COUNTER:
                counter = CounterMetricFamily(metric.family, metric.help, labels=list(metric.labels))
                for labels, value in sorted(counter_values(metric).items()):
                    counter.add_metric([dict(labels)[key] for key in metric.labels], value)
                yield counter
            else:
                histogram = HistogramMetricFamily(metric.name, metric.help, labels=list(metric.labels))
                for labels, values in sorted(histogram_values(metric).items()):
                    histogram.add_metric(
                        [dict(labels)[key] for key in metric.labels], values.buckets, sum_value=values.sum
                    )
                yield histogram


REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(DatabaseCollector())


def authorised(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return True
    sent = request.headers.get("Authorization", "")
    return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


@login_not_required
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not authorised(request):
        response = HttpResponse(
            "Unauthorized: send the header Authorization: Bearer <METRICS_TOKEN>.\n",
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
