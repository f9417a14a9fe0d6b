"""Cluster pages: the list (front page), join, the health panel, the fleet tiles; htmx fragments of each."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from clusters import charts, k8s, services
from clusters.conventions import lint_clusters, load_rules, rule_of
from clusters.forms import MAX_KUBECONFIG, BulkLabelsForm, ConventionForm, JoinForm, TaintForm, label_rows
from clusters.joining import connection_from_kubeconfig, preview
from clusters.listing import SORTS, UNLISTED, ListQuery, filter_clusters, listed
from clusters.models import Cluster, ClusterEvent, LabelConvention
from clusters.samples import series
from clusters.services import JoinError, SpecError, StaleResourceVersion
from clusters.showlabels import show_labels_table
from clusters.summary import SEVERITY_FIELDS, reasons, worst_first_ids
from core.errors import FieldErrors
from core.permissions import role_required
from core.roles import ADMIN, OPERATOR, has_role
from kubesyntax.selectors import SelectorError

PAGE_SIZE = 50
CHART_WINDOW = timedelta(hours=1)
COLUMNS = (
    ("name", gettext_lazy("Name")),
    ("status", gettext_lazy("Status")),
    ("version", gettext_lazy("Version")),
    ("region", gettext_lazy("Region / zones")),
    ("nodes", gettext_lazy("Nodes")),
    ("cpu", gettext_lazy("CPU")),
    ("memory", gettext_lazy("Memory")),
)


def _query(request: HttpRequest) -> ListQuery:
    sort = request.GET.get("sort", "name")
    return ListQuery(selector=request.GET.get("selector", "").strip(), sort=sort if sort in SORTS else "name")


def _list_context(request: HttpRequest) -> dict[str, Any]:
    query = _query(request)
    error, ids = "", []
    try:
        ids = filter_clusters(query)
    except SelectorError as exc:
        error = _("%(m)s (at character %(p)d)") % {"m": exc.message, "p": exc.position + 1}
    page = Paginator(ids, PAGE_SIZE).get_page(request.GET.get("page"))
    by_id = {c.pk: c for c in listed(Cluster.objects.filter(pk__in=list(page.object_list)))}
    now = timezone.now()
    rules = load_rules()
    rows = [_row(by_id[pk], now, rules) for pk in page.object_list if pk in by_id]
    return {
        "query": query,
        "selector_error": error,
        "rows": rows,
        "page": page,
        "page_query": urlencode({"selector": query.selector, "sort": query.sort}),
        "total": Cluster.objects.count() if query.selector else len(ids),
        "columns": _columns(query),
        "can_edit_labels": has_role(request.user, OPERATOR),
        "can_join": has_role(request.user, ADMIN),
    }


def _columns(query: ListQuery) -> list[dict[str, Any]]:
    """Sortable column headers: clicking the sorted column again reverses it."""
    columns = []
    for key, label in COLUMNS:
        active = query.sort.lstrip("-") == key
        descending = query.sort.startswith("-")
        target = f"-{key}" if active and not descending else key
        columns.append(
            {
                "key": key,
                "label": label,
                "url": "?" + urlencode({"selector": query.selector, "sort": target}),
                "sorted": ("descending" if descending else "ascending") if active else "none",
            }
        )
    return columns


def _percent(part: int, whole: int) -> int | None:
    return round(100 * part / whole) if whole else None


def _level(percent: int | None) -> str:
    if percent is None:
        return ""
    return "err" if percent >= 90 else "warn" if percent >= 80 else ""


def _row(cluster: Cluster, now: Any, rules: dict[str, Any]) -> dict[str, Any]:
    cpu = _percent(cluster.cpu_allocated, cluster.cpu_allocatable)
    memory = _percent(cluster.memory_allocated, cluster.memory_allocatable)
    return {
        "cluster": cluster,
        "labels": sorted(cluster.labels.items()),
        "reasons": reasons(cluster, now),
        "cpu": cpu,
        "cpu_level": _level(cpu),
        "memory": memory,
        "memory_level": _level(memory),
        "lint": lint_clusters([cluster], rules)[cluster.name],
    }


@require_GET
def cluster_list(request: HttpRequest) -> HttpResponse:
    """The front page: every cluster with status, labels, capacity; filtered by a label selector."""
    context = _list_context(request)
    if request.htmx and request.htmx.target == "cluster-table":
        return render(request, "clusters/_table.html", context)
    return render(request, "clusters/list.html", context)


@require_GET
def export_text(request: HttpRequest) -> HttpResponse:
    """`kubectl get clusters --show-labels` as text, for the clusters the selector matches."""
    try:
        ids = filter_clusters(_query(request))
    except SelectorError as exc:
        return HttpResponse(f"error: {exc.message}\n", status=400, content_type="text/plain; charset=utf-8")
    order = {pk: index for index, pk in enumerate(ids)}
    clusters = sorted(Cluster.objects.filter(pk__in=ids), key=lambda c: order[c.pk])
    return HttpResponse(show_labels_table(clusters, timezone.now()), content_type="text/plain; charset=utf-8")


@require_POST
@role_required(OPERATOR)
def bulk_labels(request: HttpRequest) -> HttpResponse:
    names = request.POST.getlist("cluster")
    form = BulkLabelsForm(request.POST)
    back = reverse("clusters:list") + (
        "?" + request.POST["return_query"] if request.POST.get("return_query") else ""
    )
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect(back)
    try:
        services.bulk_patch_labels(
            names, form.cleaned_data["set_labels"], form.cleaned_data["remove_keys"], user=request.user
        )
    except SpecError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    messages.success(request, _("Labels changed on %(n)d clusters.") % {"n": len(names)})
    return redirect(back)


@role_required(ADMIN)
def join(request: HttpRequest) -> HttpResponse:
    """Paste or upload a kubeconfig, pick a context, test the connection, join."""
    form = JoinForm(request.POST or None, request.FILES or None)
    contexts: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            conn = connection_from_kubeconfig(form.cleaned_data["kubeconfig"], form.cleaned_data["context"])
            cluster, seen, _created = services.join(
                form.cleaned_data["name"], conn, labels=form.cleaned_data["label_map"], user=request.user
            )
        except JoinError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(
                request,
                _("Joined %(name)s: %(version)s, %(ready)d/%(total)d nodes Ready.")
                % {
                    "name": cluster.name,
                    "version": seen.version,
                    "ready": seen.nodes_ready,
                    "total": seen.nodes_total,
                },
            )
            return redirect("clusters:detail", name=cluster.name)
    if form.is_bound:
        contexts = _contexts(form.data.get("kubeconfig", ""))
    return render(request, "clusters/join.html", {"form": form, "contexts": contexts})


def _contexts(text: str) -> list[str]:
    try:
        return k8s.contexts(text) if text.strip() else []
    except k8s.InvalidKubeconfig:
        return []


@require_POST
@role_required(ADMIN)
def join_contexts(request: HttpRequest) -> HttpResponse:
    """The context picker for the kubeconfig being pasted (htmx fragment)."""
    upload = request.FILES.get("kubeconfig_file")
    text = request.POST.get("kubeconfig", "")
    if upload is not None and upload.size <= MAX_KUBECONFIG:
        text = upload.read().decode("utf-8", "replace")
    error = ""
    try:
        names = k8s.contexts(text) if text.strip() else []
        current = k8s.current_context(text) if text.strip() else None
    except k8s.InvalidKubeconfig as exc:
        names, current, error = [], None, exc.message
    return render(
        request,
        "clusters/_contexts.html",
        {"contexts": names, "current": request.POST.get("context") or current, "error": error},
    )


@require_POST
@role_required(ADMIN)
def join_test(request: HttpRequest) -> HttpResponse:
    """Connect with the chosen context and show the version and nodes, saving nothing (htmx fragment)."""
    form = JoinForm(request.POST, request.FILES or None)
    result: dict[str, Any] = {}
    if form.is_valid():
        try:
            conn = connection_from_kubeconfig(form.cleaned_data["kubeconfig"], form.cleaned_data["context"])
            result["preview"] = preview(conn)
            result["server"] = conn.server
        except JoinError as exc:
            result["error"] = exc.message
    else:
        result["error"] = " ".join(e for errors in form.errors.values() for e in errors)
    return render(request, "clusters/_join_test.html", result)


def _detail_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    now = timezone.now()
    samples = series(cluster.pk, CHART_WINDOW, now)
    figures = {
        "fig-ready": charts.ready_timeline_figure(samples, now - CHART_WINDOW, now),
        "fig-utilisation": charts.utilisation_figure(samples),
        "fig-nodes": charts.nodes_and_pods_figure(samples),
        "fig-latency": charts.latency_figure(samples),
    }
    return {
        "cluster": cluster,
        "reasons": reasons(cluster, now),
        "figures": {name: json.loads(fig.to_json()) for name, fig in figures.items()},
        "events": list(ClusterEvent.objects.filter(cluster=cluster)[:20]),
        "lint": lint_clusters([cluster])[cluster.name],
        "api_enablements": (cluster.status or {}).get("apiEnablements") or [],
        "nodes": (cluster.status or {}).get("nodes") or [],
        "can_edit_labels": has_role(request.user, OPERATOR),
        "can_admin": has_role(request.user, ADMIN),
        "taint_form": TaintForm(),
        "label_rows": [{"key": k, "value": v, "error": ""} for k, v in sorted(cluster.labels.items())],
    }


@require_GET
def detail(request: HttpRequest, name: str) -> HttpResponse:
    """One cluster's health panel: conditions, charts, taints, labels, API versions, CIDRs, workloads."""
    cluster = get_object_or_404(Cluster, name=name)
    context = {"cluster": cluster, **_detail_context(request, cluster)}
    return render(request, "clusters/detail.html", context)


@require_GET
def panel(request: HttpRequest, name: str) -> HttpResponse:
    """The live part of the health panel, polled by htmx."""
    cluster = get_object_or_404(Cluster, name=name)
    return render(request, "clusters/_panel.html", _detail_context(request, cluster))


@require_POST
@role_required(OPERATOR)
def edit_labels(request: HttpRequest, name: str) -> HttpResponse:
    """Save the label editor: the whole map, only if the cluster is still at the version shown."""
    cluster = get_object_or_404(Cluster, name=name)
    labels, rows = label_rows(request.POST)
    context: dict[str, Any] = {"cluster": cluster, "label_rows": rows, "can_edit_labels": True}
    status = 200
    if any(row["error"] for row in rows):
        context["labels_error"] = _("Fix the marked labels.")
        status = 400
    else:
        try:
            version = int(request.POST.get("resource_version", ""))
        except ValueError:
            version = -1
        try:
            cluster = services.set_labels(cluster, labels, version, user=request.user)
        except StaleResourceVersion as exc:
            context["labels_error"] = str(exc)
            context["current_labels"] = exc.cluster.labels
            status = 409
        except SpecError as exc:
            context["labels_error"] = exc.message
            status = 400
        else:
            context.update(
                cluster=cluster,
                label_rows=[{"key": k, "value": v, "error": ""} for k, v in sorted(cluster.labels.items())],
                labels_saved=True,
            )
    if request.htmx:
        return render(request, "clusters/_labels.html", context, status=status)
    if status == 200:
        messages.success(request, _("Labels saved."))
    else:
        messages.error(request, context["labels_error"])
    return redirect("clusters:detail", name=cluster.name)


@require_GET
@role_required(OPERATOR)
def label_row(request: HttpRequest, name: str) -> HttpResponse:
    return render(request, "clusters/_label_row.html", {"row": {"key": "", "value": "", "error": ""}})


@require_POST
@role_required(ADMIN)
def taints(request: HttpRequest, name: str) -> HttpResponse:
    """Add, remove, cordon, uncordon — one form posting `action`."""
    cluster = get_object_or_404(Cluster, name=name)
    action = request.POST.get("action", "add")
    form = TaintForm(request.POST if action == "add" else None)
    error = ""
    try:
        if action == "add":
            if form.is_valid():
                data = form.cleaned_data
                cluster = services.add_taint(
                    cluster, data["key"], data["value"], data["effect"], user=request.user
                )
                form = TaintForm()
        elif action == "remove":
            cluster = services.remove_taint(
                cluster, request.POST.get("key", ""), request.POST.get("effect") or None, user=request.user
            )
        elif action == "cordon":
            cluster = services.cordon(cluster, user=request.user)
        elif action == "uncordon":
            cluster = services.uncordon(cluster, user=request.user)
        else:
            error = _("Unknown action.")
    except SpecError as exc:
        error = exc.message
    context = {"cluster": cluster, "taint_form": form, "taint_error": error, "can_admin": True}
    status = 400 if error or (action == "add" and form.errors) else 200
    if request.htmx:
        return render(request, "clusters/_taints.html", context, status=status)
    if error:
        messages.error(request, error)
    return redirect("clusters:detail", name=cluster.name)


@require_POST
@role_required(ADMIN)
def unjoin(request: HttpRequest, name: str) -> HttpResponse:
    cluster = get_object_or_404(Cluster, name=name)
    try:
        deleted = services.unjoin(
            cluster, delete_resources=bool(request.POST.get("delete_resources")), user=request.user
        )
    except JoinError as exc:
        messages.error(request, exc.message)
        return redirect("clusters:detail", name=name)
    messages.success(
        request, _("Unjoined %(name)s; deleted %(n)d objects there.") % {"name": name, "n": len(deleted)}
    )
    return redirect("clusters:list")


FLEET_SORTS = ("worst", "name")
FLEET_PAGE_SIZE = 100


def _selected_clusters(selector: str) -> tuple[list[Cluster], str]:
    """The clusters a label selector matches (all for an empty one) and the parse error, if any."""
    if not selector:
        return list(listed(Cluster.objects.all())), ""
    try:
        ids = filter_clusters(ListQuery(selector=selector))
    except SelectorError as exc:
        return [], _("%(m)s (at character %(p)d)") % {"m": exc.message, "p": exc.position + 1}
    return list(listed(Cluster.objects.filter(pk__in=ids))), ""


def _fleet_order(selector: str, sort: str) -> tuple[list[int], str]:
    """The ids of the clusters the selector matches, worst first or by name, from light values() rows
    of every cluster (no model instances); the page's clusters are loaded afterwards."""
    rows = Cluster.objects.values("id", "name", *SEVERITY_FIELDS)
    if selector:
        try:
            matched = set(filter_clusters(ListQuery(selector=selector)))
        except SelectorError as exc:
            return [], _("%(m)s (at character %(p)d)") % {"m": exc.message, "p": exc.position + 1}
        rows = rows.filter(pk__in=matched)
    if sort == "worst":
        return worst_first_ids(list(rows)), ""
    return [row["id"] for row in sorted(rows.values("id", "name"), key=lambda row: row["name"])], ""


@require_GET
def fleet(request: HttpRequest) -> HttpResponse:
    """Every cluster as a tile, worst first, with why it is unhealthy in words; filter by label selector."""
    events = ClusterEvent.objects.select_related("cluster").defer(*(f"cluster__{f}" for f in UNLISTED))
    events = events.exclude(ready="")[:15]
    if request.htmx and request.htmx.target == "fleet-changes":
        return render(request, "clusters/_changes.html", {"events": events})
    now = timezone.now()
    selector = request.GET.get("selector", "").strip()
    sort = request.GET.get("sort", "worst")
    sort = sort if sort in FLEET_SORTS else "worst"
    ids, error = _fleet_order(selector, sort)
    page = Paginator(ids, FLEET_PAGE_SIZE).get_page(request.GET.get("page"))
    by_id = {c.pk: c for c in listed(Cluster.objects.filter(pk__in=list(page.object_list)))}
    tiles = [
        {"cluster": by_id[pk], "reasons": reasons(by_id[pk], now)} for pk in page.object_list if pk in by_id
    ]
    context = {
        "tiles": tiles,
        "events": events,
        "page": page,
        "page_query": urlencode({"selector": selector, "sort": sort}),
        "selector": selector,
        "sort": sort,
        "selector_error": error,
        "total": Cluster.objects.count() if selector else len(ids),
    }
    if request.htmx and request.htmx.target == "fleet-tiles":
        return render(request, "clusters/_tiles.html", context)
    return render(request, "clusters/fleet.html", context)


def _conventions_context(request: HttpRequest, forms_by_id: dict[int, Any] | None = None) -> dict[str, Any]:
    rules = list(LabelConvention.objects.all())
    selector = request.GET.get("selector", "").strip()
    clusters, error = _selected_clusters(selector)
    findings = lint_clusters(clusters, {r.key: rule_of(r) for r in rules})
    violations = [(name, items) for name, items in sorted(findings.items()) if items]
    page = Paginator(violations, PAGE_SIZE).get_page(request.GET.get("page"))
    forms_by_id = forms_by_id or {}
    rows = []
    for rule in rules:
        form = forms_by_id.get(rule.pk) or ConventionForm(
            initial={
                "key": rule.key,
                "description": rule.description,
                "required": rule.required,
                "allowed_values": ", ".join(rule.allowed_values),
                "pattern": rule.pattern,
                "example": rule.example,
                "aliases": ", ".join(rule.aliases),
            }
        )
        rows.append({"rule": rule, "form": form})
    return {
        "rows": rows,
        "new_form": forms_by_id.get(0) or ConventionForm(),
        "violations": page.object_list,
        "page": page,
        "page_query": urlencode({"selector": selector}),
        "selector": selector,
        "selector_error": error,
        "clusters_linted": len(clusters),
        "can_edit": has_role(request.user, OPERATOR),
    }


@require_GET
def conventions(request: HttpRequest) -> HttpResponse:
    """The conventions table and, beside it, every cluster's violations with one-click fixes."""
    return render(request, "clusters/conventions.html", _conventions_context(request))


@require_POST
@role_required(OPERATOR)
def convention_save(request: HttpRequest) -> HttpResponse:
    """Create (id 0), update or delete one convention."""
    raw_id = request.POST.get("id") or "0"
    if not raw_id.isdigit():
        return HttpResponseBadRequest(_("The convention id must be a number."))
    pk = int(raw_id)
    rule = get_object_or_404(LabelConvention, pk=pk) if pk else None
    if rule is not None and request.POST.get("action") == "delete":
        services.delete_convention(rule, user=request.user)
        messages.success(request, _("Convention %(key)s deleted.") % {"key": rule.key})
        return redirect("clusters:conventions")
    form = ConventionForm(request.POST)
    if form.is_valid():
        data = {k: form.cleaned_data[k] for k in ConventionForm.base_fields}
        try:
            if rule is None:
                services.create_convention(data, user=request.user)
            else:
                services.update_convention(rule, data, user=request.user)
        except FieldErrors as exc:
            for field, errors in exc.errors.items():
                for error in errors:
                    form.add_error(field if field in form.fields else None, error)
        else:
            messages.success(request, _("Convention %(key)s saved.") % {"key": data["key"]})
            return redirect("clusters:conventions")
    response = render(request, "clusters/conventions.html", _conventions_context(request, {pk: form}))
    response.status_code = 400
    return response


@require_POST
@role_required(OPERATOR)
def lint_fix(request: HttpRequest) -> HttpResponse:
    """Apply the fix of one finding, recomputed now, so a stale page never applies a stale fix."""
    cluster = get_object_or_404(Cluster, name=request.POST.get("cluster", ""))
    finding = services.fix_finding(
        cluster, request.POST.get("code", ""), request.POST.get("key", ""), user=request.user
    )
    if finding is None:
        messages.warning(request, _("That finding is gone or has no automatic fix any more."))
    else:
        messages.success(
            request, _("Fixed on %(name)s: %(m)s") % {"name": cluster.name, "m": finding.message}
        )
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = reverse("clusters:conventions")
    return redirect(target)
