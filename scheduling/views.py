"""Pages of scheduling: workloads, the workload chain, policies and the audit log, plus Rebalance."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from karmada_ui.models import AuditEntry
from karmada_ui.permissions import role_required
from karmada_ui.roles import OPERATOR, VIEWER, has_role
from scheduling import services, summaries
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate

PAGE_SIZE = 50
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
    context = summaries.workload_chain(template)
    context["can_rebalance"] = has_role(request.user, OPERATOR) and context["binding"] is not None
    if request.htmx and request.htmx.target == "workload-members":
        return render(request, "scheduling/_workload_members.html", context)
    return render(request, "scheduling/workload.html", context)


@require_POST
@role_required(OPERATOR)
def workload_rebalance(request: HttpRequest, pk: int) -> HttpResponse:
    template = get_object_or_404(ResourceTemplate, pk=pk)  # pk=, unlike template_id=, survives huge ids
    binding = get_object_or_404(ResourceBinding.objects.select_related("template"), template=template)
    services.rebalance([binding], user=request.user)
    messages.success(request, _("Rebalance requested: the scheduler recomputes this workload from scratch."))
    return redirect("scheduling:workload", pk=pk)


@role_required(VIEWER)
def policies(request: HttpRequest) -> HttpResponse:
    rows = PropagationPolicy.objects.prefetch_related("templates").order_by("kind", "namespace", "name")
    return render(request, "scheduling/policies.html", {"policies": rows})


@role_required(VIEWER)
def policy(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(PropagationPolicy, pk=pk)
    templates = summaries.templates_with_bindings().filter(policy=row).order_by("namespace", "name")
    context = {
        "policy": row,
        "policy_yaml": summaries.policy_yaml(row),
        "rows": summaries.workload_rows(templates),
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


@role_required(VIEWER)
def audit_log(request: HttpRequest) -> HttpResponse:
    entries = AuditEntry.objects.all()
    query = request.GET.get("q", "").strip()
    if query:
        entries = entries.filter(object_name__icontains=query) | entries.filter(username__icontains=query)
    page = Paginator(entries.order_by("-created_at", "-id"), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "scheduling/audit.html", {"page": page, "q": query})
