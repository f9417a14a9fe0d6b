"""Pages that look into the member clusters: a workload's copies, pods and events across clusters, and
its pods' logs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render

from clusters.k8s import KubeError
from core.errors import FieldError
from core.permissions import role_required
from core.roles import VIEWER
from scheduling import pod_logs
from scheduling.across_clusters import across_document, workload_across
from scheduling.models import ResourceTemplate, Work


@role_required(VIEWER)
def workload_across_clusters(request: HttpRequest, pk: int) -> HttpResponse:
    """The fragment the workload page loads (and polls): per cluster the copy and its pods, then events."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    document = across_document(workload_across(template))
    return render(request, "scheduling/_across_clusters.html", {"template": template, **document})


def _log_context(template: ResourceTemplate, params: Any) -> dict[str, Any]:
    """The logs page's form state, the pods to choose from, and the text (or why there is none)."""
    clusters = sorted(
        Work.objects.filter(binding__template=template, deleting=False).values_list("cluster_name", flat=True)
    )
    context: dict[str, Any] = {
        "template": template,
        "clusters": clusters,
        "text": "",
        "error": "",
        "pods": [],
    }
    if not params.get("cluster") and clusters:
        params = {**params.dict(), "cluster": clusters[0]}
    try:
        query = pod_logs.parse_query(params)
        context["query"] = query
        found = pod_logs.workload_pods(template, query.cluster)
        context["pods"] = found.pods
        chosen = next((p for p in found.pods if p.name == query.pod), None)
        context["containers"] = chosen.containers if chosen else ()
        context["text"] = pod_logs.read_logs(template, query)
    except FieldError as exc:
        context["error"], context["error_field"] = exc.message, exc.field
    except KubeError as exc:
        context["error"] = exc.message
    return context


@role_required(VIEWER)
def pod_logs_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A pod's container log (tail, previous, follow), or every pod's of the workload in one cluster."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    context = _log_context(template, request.GET)
    status = 400 if context.get("error_field") else 200
    if request.htmx and request.htmx.target == "log-output":
        return render(request, "scheduling/_pod_log_text.html", context, status=status)
    return render(request, "scheduling/pod_logs.html", context, status=status)


def _event_stream(lines: Iterator[str]) -> Iterator[str]:
    """Server-sent events: one `data:` message per log line, an `end` event when the stream closes."""
    try:
        for line in lines:
            yield f"data: {line}\n\n"
    except KubeError as exc:
        yield f"event: failure\ndata: {exc.message}\n\n"
    yield "event: end\ndata: \n\n"


@role_required(VIEWER)
def pod_logs_follow(request: HttpRequest, pk: int) -> HttpResponse:
    """The followed log as an event stream the page's script reads while the tab stays open."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    try:
        lines = pod_logs.follow_logs(template, pod_logs.parse_query(request.GET))
    except FieldError as exc:
        return HttpResponseBadRequest(f"{exc.field}: {exc.message}", content_type="text/plain")
    except KubeError as exc:
        return HttpResponse(exc.message, status=502, content_type="text/plain")
    response = StreamingHttpResponse(_event_stream(lines), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must pass each line on at once
    return response
