"""Pages that look into the member clusters: a workload's copies, pods and events across clusters, its
pods' logs, the manifest we apply beside the live diff with its drift events, drift counts, and the
fleet search with each object's page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import yaml
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clusters.k8s import KubeError
from clusters.models import Cluster
from core.errors import FieldError
from core.permissions import role_required
from core.roles import OPERATOR, VIEWER, has_role
from scheduling import services
from scheduling.karmada import names
from scheduling.karmada.drift import masked
from scheduling.members import drift, search
from scheduling.members import logs as pod_logs
from scheduling.members.across import across_document, workload_across
from scheduling.models import ResourceBinding, ResourceTemplate, Work

PAGE_EVENTS = 30  # the newest; the REST API answers up to across.MAX_EVENTS


@role_required(VIEWER)
def workload_across_clusters(request: HttpRequest, pk: int) -> HttpResponse:
    """The fragment the workload page loads (and polls): per cluster the copy and its pods, then events."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    document = across_document(workload_across(template))
    events = document.pop("events")
    context = {"template": template, **document, "events": events[:PAGE_EVENTS], "events_total": len(events)}
    return render(request, "scheduling/_across_clusters.html", context)


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


@role_required(VIEWER)
def workload_drift(request: HttpRequest, pk: int) -> HttpResponse:
    """The fragment of the workload page: per cluster the manifest we apply, the live diff, the hold,
    and the copy's drift events."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    context = {
        "template": template,
        "copies": drift.copies_drift(template),
        "can_reapply": has_role(request.user, OPERATOR),
    }
    return render(request, "scheduling/_drift.html", context)


@require_POST
@role_required(OPERATOR)
def workload_reapply(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-apply now: our manifest written to one member copy whose repair is held."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    binding = get_object_or_404(ResourceBinding.objects.select_related("template"), template=template)
    cluster = request.POST.get("cluster", "").strip()
    try:
        result = services.reapply_copy(binding, cluster, user=request.user)
    except FieldError as exc:
        return HttpResponseBadRequest(exc.message)
    if result.ok:
        messages.success(request, _("%(cluster)s: our manifest is applied again.") % {"cluster": cluster})
    else:
        messages.error(
            request,
            _("%(cluster)s: the re-apply failed: %(why)s") % {"cluster": cluster, "why": result.message},
        )
    return redirect(reverse("scheduling:workload", args=[pk]) + "#drift")


@role_required(VIEWER)
def drift_counts(request: HttpRequest) -> HttpResponse:
    """Drift in the last 24 h, for the fleet page (every cluster) or one cluster's page (`?cluster=`)."""
    cluster = request.GET.get("cluster", "").strip()
    context = {
        "cluster": cluster,
        "counts": drift.drift_counts(cluster),
        "by_cluster": sorted(drift.drift_counts_by_cluster().items()) if not cluster else [],
    }
    return render(request, "scheduling/_drift_counts.html", context)


def _search_query(request: HttpRequest) -> tuple[search.SearchQuery | None, str, str]:
    try:
        return search.parse_query(request.GET), "", ""
    except FieldError as exc:
        return None, exc.field, exc.message


@role_required(VIEWER)
def search_page(request: HttpRequest) -> HttpResponse:
    """Fleet search: the form, then one fragment per cluster that fills in as that cluster answers."""
    query, field, error = _search_query(request)
    context = {
        "query": query or search.SearchQuery(),
        "q": request.GET.get("q", ""),
        "error": error,
        "error_field": field,
        "clusters": list(Cluster.objects.order_by("name").values_list("name", flat=True)),
        "encoded": urlencode(query.params()) if query else "",
        "deadline": search.DEADLINE,
    }
    return render(request, "scheduling/search.html", context, status=400 if error else 200)


@role_required(VIEWER)
def search_in_cluster(request: HttpRequest, name: str) -> HttpResponse:
    """One cluster's matches (or that it timed out), the fragment the search page loads per cluster."""
    cluster = get_object_or_404(Cluster, name=name)
    query, field, error = _search_query(request)
    if query is None:
        return HttpResponseBadRequest(f"{field}: {error}")
    answer = search.search_one(cluster, query)
    return render(request, "scheduling/_search_cluster.html", {"answer": answer, "query": query})


@role_required(VIEWER)
def member_object(request: HttpRequest) -> HttpResponse:
    """One object of a member cluster as it is there, managedFields left out and Secret values hidden."""
    params = {key: request.GET.get(key, "").strip() for key in ("cluster", "kind", "namespace", "name")}
    cluster = get_object_or_404(Cluster, name=params["cluster"])
    context: dict[str, Any] = {"params": params, "error": "", "yaml": ""}
    if not params["kind"] or not params["name"]:
        return HttpResponseBadRequest(_("kind and name are required"))
    try:
        live = search.read_object(cluster, params["kind"], params["namespace"], params["name"])
    except KubeError as exc:
        context["error"] = exc.message
    else:
        shown = dict(masked(live))
        shown["metadata"] = {k: v for k, v in (live.get("metadata") or {}).items() if k != "managedFields"}
        context["yaml"] = yaml.safe_dump(shown, sort_keys=False)
        context["managed"] = (shown["metadata"].get("labels") or {}).get(names.MANAGED_LABEL) == "true"
    return render(request, "scheduling/member_object.html", context, status=502 if context["error"] else 200)
