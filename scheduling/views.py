"""Pages of scheduling: workloads, the workload chain, policies and the audit log, plus Rebalance; and the
fragments other apps' pages embed (the workloads on a cluster, the fleet's last moves)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from clusters.models import Cluster
from core.audit_log import UnknownCursor, audit_page
from core.models import AuditEntry
from core.permissions import role_required
from core.roles import OPERATOR, VIEWER, has_role
from scheduling import quotas, services, summaries
from scheduling.controllers.rollouts import RolloutRefused
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate, Rollout
from scheduling.placements import (
    PLACEMENT_SORTS,
    filter_placements,
    list_placements,
    recent_moves,
    sort_placements,
)

PAGE_SIZE = 50
CLAIMED_SHOWN = 5  # workloads named per policy on the policy list; the policy's page lists them all
SORTS = {"name": "name", "-name": "-name", "kind": "kind", "namespace": "namespace", "policy": "policy__name"}


@role_required(VIEWER)
def workloads(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    sort = request.GET.get("sort", "namespace")
    templates = summaries.filter_workloads(summaries.templates_with_bindings(), query)
    templates = templates.order_by(SORTS.get(sort, "namespace"), "name", "kind")
    page = Paginator(templates, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"rows": summaries.workload_rows(page.object_list), "page": page, "q": query, "sort": sort}
    if request.htmx and request.htmx.target == "workload-table":
        return render(request, "scheduling/_workload_table.html", context)
    return render(request, "scheduling/workloads.html", context)


@role_required(VIEWER)
def workload(request: HttpRequest, pk: int) -> HttpResponse:
    template = get_object_or_404(ResourceTemplate.objects.select_related("policy"), pk=pk)
    if request.htmx and request.htmx.target == "workload-members":
        # the member table polls: its clusters only, not the whole chain with its YAML
        return render(request, "scheduling/_workload_members.html", summaries.workload_members(template))
    context = summaries.workload_chain(template)
    context["can_rebalance"] = has_role(request.user, OPERATOR) and context["binding"] is not None
    context["can_hold"] = context["can_rebalance"]
    return render(request, "scheduling/workload.html", context)


@require_POST
@role_required(OPERATOR)
def workload_rebalance(request: HttpRequest, pk: int) -> HttpResponse:
    template = get_object_or_404(ResourceTemplate, pk=pk)  # pk=, unlike template_id=, survives huge ids
    binding = get_object_or_404(ResourceBinding.objects.select_related("template"), template=template)
    services.rebalance([binding], user=request.user)
    messages.success(request, _("Rebalance requested: the scheduler recomputes this workload from scratch."))
    return redirect("scheduling:workload", pk=pk)


@require_POST
@role_required(OPERATOR)
def workload_hold(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause or resume the workload's scheduling, or its dispatching (everywhere, or to one cluster)."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    rows = ResourceBinding.objects.select_related("template", "policy")
    binding = get_object_or_404(rows, template=template)
    what = request.POST.get("what", "")
    action = request.POST.get("action", "")
    cluster = request.POST.get("cluster", "").strip()
    if what not in (services.SCHEDULING, services.DISPATCHING) or action not in ("pause", "resume"):
        return HttpResponseBadRequest(_("what must be scheduling or dispatching, action pause or resume"))
    if cluster and (what != services.DISPATCHING or cluster not in binding.target_replicas()):
        return HttpResponseBadRequest(_("cluster must be one of the workload's clusters, for dispatching"))
    result = services.set_hold(binding, what, action == "pause", cluster=cluster, user=request.user)
    messages.success(request, _hold_message(what, action, cluster, result))
    return redirect("scheduling:workload", pk=pk)


def _hold_message(what: str, action: str, cluster: str, result: services.HoldResult) -> str:
    words = {
        ("scheduling", "pause"): _("Scheduling paused: the scheduler leaves this workload where it is."),
        ("scheduling", "resume"): _("Scheduling resumed."),
        ("dispatching", "pause"): _("Dispatching paused: member clusters keep their current copies."),
        ("dispatching", "resume"): _("Dispatching resumed."),
    }
    text = str(words[(what, action)])
    if cluster:
        text = _("%(cluster)s: %(text)s") % {"cluster": cluster, "text": text}
    if action == "resume" and what == "dispatching" and result.policy_suspension:
        text += " " + _("The policy itself still suspends dispatching; change the policy to lift that.")
    return text


@role_required(VIEWER)
def workload_rollout(request: HttpRequest, pk: int) -> HttpResponse:
    """The workload's staged rollout: its waves, where each cluster stands and why it waits."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    rows = ResourceBinding.objects.select_related("template", "policy")
    binding = get_object_or_404(rows, template=template)
    context = {
        "template": template,
        "binding": binding,
        "summary": summaries.rollout_summary(binding),
        "can_step": has_role(request.user, OPERATOR),
    }
    if request.htmx and request.htmx.target == "rollout-waves":
        return render(request, "scheduling/_rollout_waves.html", context)
    return render(request, "scheduling/rollout.html", context)


@require_POST
@role_required(OPERATOR)
def workload_rollout_step(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause, resume or abort the workload's latest rollout."""
    template = get_object_or_404(ResourceTemplate, pk=pk)
    binding = get_object_or_404(ResourceBinding, template=template)
    rollout = Rollout.objects.filter(binding=binding).first()
    if rollout is None:
        return HttpResponseBadRequest(_("This workload has no rollout to pause, resume or abort."))
    try:
        stepped = services.step_rollout(rollout, request.POST.get("step", ""), user=request.user)
    except RolloutRefused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Rollout: %(message)s") % {"message": stepped.message})
    return redirect("scheduling:workload-rollout", pk=pk)


@role_required(VIEWER)
def quota_panel(request: HttpRequest) -> HttpResponse:
    """Each namespace's FederatedResourceQuotas: used against limit, the workloads using them, refusals."""
    namespace = request.GET.get("namespace", "").strip()
    return render(
        request, "scheduling/quotas.html", {"panels": quotas.quota_panels(namespace), "namespace": namespace}
    )


@role_required(VIEWER)
def policies(request: HttpRequest) -> HttpResponse:
    # A page of policies, each with its claim count and a few of its workloads: never every template.
    first_claimed = Prefetch(
        "templates",
        queryset=ResourceTemplate.objects.order_by("namespace", "name", "pk")[:CLAIMED_SHOWN],
        to_attr="first_claimed",
    )
    rows = (
        PropagationPolicy.objects.annotate(claimed=Count("templates"))
        .prefetch_related(first_claimed)
        .order_by("kind", "namespace", "name")
    )
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "scheduling/policies.html", {"policies": page.object_list, "page": page})


@role_required(VIEWER)
def policy(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(PropagationPolicy, pk=pk)
    templates = summaries.templates_with_bindings().filter(policy=row).order_by("namespace", "name", "kind")
    # paginated: a policy that claims a fleet's workloads would otherwise render every one of them
    page = Paginator(templates, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "policy": row,
        "policy_yaml": summaries.policy_yaml(row),
        "rows": summaries.workload_rows(page.object_list),
        "page": page,
        "can_rebalance": has_role(request.user, OPERATOR),
    }
    return render(request, "scheduling/policy.html", context)


@require_POST
@role_required(OPERATOR)
def policy_rebalance(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(PropagationPolicy, pk=pk)
    count = services.rebalance_policy(row, user=request.user)
    messages.success(request, _("Rebalance requested for %(count)d workloads.") % {"count": count})
    return redirect("scheduling:policy", pk=pk)


AUDIT_VALUE_CHARS = 300


def _shown(change: dict[str, Any], side: str) -> str | None:
    """One side of a changed field as text (JSON for structures), or None where the field was absent."""
    if side not in change:
        return None
    value = change[side]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= AUDIT_VALUE_CHARS else text[: AUDIT_VALUE_CHARS - 1] + "…"


@role_required(VIEWER)
def audit_log(request: HttpRequest) -> HttpResponse:
    """Who changed what, when, the fields that changed (before → after) and how the placement moved."""
    entries = AuditEntry.objects.all()
    query = request.GET.get("q", "").strip()
    if query:
        entries = entries.filter(object_name__icontains=query) | entries.filter(username__icontains=query)
    try:
        page = audit_page(
            entries, PAGE_SIZE, before=request.GET.get("before", ""), after=request.GET.get("after", "")
        )
    except UnknownCursor:
        return HttpResponseBadRequest(_("That page of the audit log does not exist: start from the newest."))
    for entry in page.entries:
        entry.change_rows = [
            {"field": path, "before": _shown(change, "before"), "after": _shown(change, "after")}
            for path, change in entry.changes.items()
        ]
    return render(request, "scheduling/audit.html", {"page": page, "q": query})


PLACEMENT_COLUMNS = (
    ("name", gettext_lazy("Workload")),
    ("desired", gettext_lazy("Desired")),
    ("ready", gettext_lazy("Ready")),
)


def _workloads_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    """The workloads placed on the cluster, filtered (`wq`), sorted (`wsort`) and paginated (`wpage`)."""
    text = request.GET.get("wq", "").strip()
    sort = request.GET.get("wsort", "name")
    sort = sort if sort in PLACEMENT_SORTS else "name"
    every = list_placements(cluster.name)
    shown = sort_placements(filter_placements(every, text), sort)
    page = Paginator(shown, PAGE_SIZE).get_page(request.GET.get("wpage"))
    columns = []
    for key, label in PLACEMENT_COLUMNS:
        active, descending = sort.lstrip("-") == key, sort.startswith("-")
        target = f"-{key}" if active and not descending else key
        columns.append(
            {
                "key": key,
                "label": label,
                "query": urlencode({"wq": text, "wsort": target}),
                "sorted": ("descending" if descending else "ascending") if active else "none",
            }
        )
    return {
        "placements": page.object_list,
        "placements_page": page,
        "placements_total": len(every),
        "placements_desired": sum(p.desired or 0 for p in every if p.targeted),
        "placements_ready": sum(p.ready or 0 for p in every),
        "placements_query": urlencode({"wq": text, "wsort": sort}),
        "placement_columns": columns,
        "wq": text,
        "wsort": sort,
    }


@role_required(VIEWER)
def cluster_workloads(request: HttpRequest, name: str) -> HttpResponse:
    """The workloads placed on one cluster, for its health panel (a fragment) or as a page of its own."""
    cluster = get_object_or_404(Cluster, name=name)
    context = {"cluster": cluster, **_workloads_context(request, cluster)}
    context["can_edit_policies"] = has_role(request.user, OPERATOR)
    if request.htmx and request.htmx.target == "cluster-workloads":
        return render(request, "scheduling/_cluster_workloads_table.html", context)
    if request.htmx:
        return render(request, "scheduling/_cluster_workloads.html", context)
    return render(request, "scheduling/cluster_workloads.html", context)


@role_required(VIEWER)
def moves(request: HttpRequest) -> HttpResponse:
    """The last failovers and reschedules, each linked to its workload: a fragment of the fleet page."""
    return render(request, "scheduling/_recent_moves.html", {"moves": recent_moves()})
