"""Pages and fragments of the policy editor: editor, live preview, tab switch, drafts, review and apply."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from clusters.conventions import lint_selector, load_rules
from core.permissions import role_required
from core.roles import OPERATOR
from scheduling.controllers.apply import ApplyError
from scheduling.controllers.export import propagation_policy_document
from scheduling.editor import drill as drilling
from scheduling.editor import inventory, policy
from scheduling.editor.applying import apply_policy, save_draft
from scheduling.editor.checks import validate_policy
from scheduling.editor.document import dump_yaml
from scheduling.editor.live_preview import WorkloadInput, build_preview
from scheduling.editor.models import PolicyDraft
from scheduling.editor.state import FORM, SLOT_NAMES, YAML, EditorInput, form_slots, read_editor
from scheduling.editor.whatif import build_whatif, capture
from scheduling.models import (
    CLUSTER_PROPAGATION_POLICY,
    PROPAGATION_POLICY,
    PropagationPolicy,
    ResourceTemplate,
)
from scheduling.planner import ClusterSnapshot

DEFAULT_REPLICAS = 10
MAX_PREVIEW_REPLICAS = 100_000


def _identity(doc: dict[str, Any]) -> tuple[str, str, str]:
    meta = policy.metadata(doc)
    namespace = "" if policy.is_cluster_scoped(doc) else str(meta.get("namespace") or "")
    return str(doc.get("kind") or ""), namespace, str(meta.get("name") or "")


def _edit_url(kind: str, namespace: str, name: str) -> str:
    if kind == CLUSTER_PROPAGATION_POLICY:
        return reverse("scheduling:cluster_policy_edit", args=[name])
    return reverse("scheduling:policy_edit", args=[namespace, name])


def _editing_document(existing: PropagationPolicy) -> dict[str, Any]:
    """The stored policy as Karmada YAML, without the permanent-id label the control plane manages."""
    doc = propagation_policy_document(existing)
    labels = doc["metadata"].get("labels") or {}
    labels.pop(existing.permanent_id_label, None)
    if not labels:
        doc["metadata"].pop("labels", None)
    return doc


def _workload_choice(data: Any, doc: dict[str, Any] | None) -> WorkloadInput:
    """The chosen workload (the scheduler's inputs for it under ``doc``), with the typed replica count
    when one is given."""
    typed: int | None
    try:
        typed = max(0, min(int(data.get("replicas")), MAX_PREVIEW_REPLICAS))
    except (TypeError, ValueError):
        typed = None
    chosen = None
    if str(data.get("workload") or "").isdigit():
        template = ResourceTemplate.objects.filter(pk=int(data["workload"])).first()
        chosen = inventory.workload_input(template, doc) if template is not None else None
    if chosen is None:
        return WorkloadInput(replicas=DEFAULT_REPLICAS if typed is None else typed)
    return chosen if typed is None else replace(chosen, replicas=typed)


def _selector_lints(doc: dict[str, Any] | None, snapshots: list[ClusterSnapshot]) -> list[str]:
    """Findings about the label selector (matches none or all, unknown keys, typos) from the cluster lint."""
    if doc is None:
        return []
    selector = policy.as_map(policy.placement(doc).get("clusterAffinity")).get("labelSelector")
    if not isinstance(selector, dict) or not selector:
        return []
    labels = {snapshot.name: snapshot.labels for snapshot in snapshots}
    return [str(finding["message"]) for finding in lint_selector(selector, labels, load_rules())]


def _page(
    request: HttpRequest, doc: dict[str, Any], *, existing: PropagationPolicy | None, draft: Any
) -> HttpResponse:
    snapshots = inventory.fleet()
    captured = capture(doc).captured
    data = request.GET.copy()
    if "workload" not in data and captured:
        data["workload"] = str(captured[0].template.pk)
    workload = _workload_choice(data, doc)
    editor = EditorInput(FORM, dump_yaml(doc), doc, [])
    context = {
        "editor": editor,
        "state": editor.form_state(),
        "yaml_text": dump_yaml(doc),
        "mode": FORM,
        "fleet": snapshots,
        "preview": build_preview(doc, snapshots, workload),
        "lints": _selector_lints(doc, snapshots),
        "workload": workload,
        "chosen": data.get("workload", ""),
        "captured": captured,
        "slots": {name: [] for name in SLOT_NAMES},
        "existing": existing,
        "draft": draft,
        "kinds": policy.KINDS,
        "choices": inventory.form_choices(),
    }
    return render(request, "scheduling/editor/editor.html", context)


@require_GET
@role_required(OPERATOR)
def policy_new(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind") if request.GET.get("kind") in policy.KINDS else PROPAGATION_POLICY
    return _page(request, policy.new_policy(kind), existing=None, draft=None)


def _edit(request: HttpRequest, kind: str, namespace: str, name: str) -> HttpResponse:
    existing = PropagationPolicy.objects.filter(kind=kind, namespace=namespace, name=name).first()
    draft = PolicyDraft.objects.filter(kind=kind, namespace=namespace, name=name).first()
    if existing is None and draft is None:
        return get_object_or_404(PropagationPolicy, kind=kind, namespace=namespace, name=name)
    use_draft = draft is not None and request.GET.get("source") != "applied"
    doc = draft.document if use_draft else _editing_document(existing)  # type: ignore[union-attr, arg-type]
    return _page(request, doc, existing=existing, draft=draft if use_draft else None)


@require_GET
@role_required(OPERATOR)
def policy_edit(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    return _edit(request, PROPAGATION_POLICY, namespace, name)


@require_GET
@role_required(OPERATOR)
def cluster_policy_edit(request: HttpRequest, name: str) -> HttpResponse:
    return _edit(request, CLUSTER_PROPAGATION_POLICY, "", name)


@require_POST
@role_required(OPERATOR)
def policy_preview(request: HttpRequest) -> HttpResponse:
    """Validation, selector matches and the split preview for the editor's current content."""
    editor = read_editor(request.POST)
    snapshots = inventory.fleet()
    workload = _workload_choice(request.POST, editor.doc)
    preview = build_preview(editor.doc, snapshots, workload) if editor.doc is not None else None
    context = {
        "editor": editor,
        "mode": editor.mode,
        "preview": preview,
        "workload": workload,
        "fleet": snapshots,
        "slots": form_slots(editor.problems),
        "lints": _selector_lints(editor.doc, snapshots),
        "yaml_problems": editor.yaml_problems() if editor.mode == YAML else [],
    }
    # Rendered without the request: the fragment needs no page chrome, and skipping the context
    # processors (navigation, fleet summary) keeps every slider move fast.
    return HttpResponse(render_to_string("scheduling/editor/_preview_response.html", context))


@require_POST
@role_required(OPERATOR)
def policy_switch(request: HttpRequest) -> HttpResponse:
    """Switch between form and YAML: convert the side the user edited into the other, losing nothing."""
    editor = read_editor(request.POST)
    target = YAML if request.POST.get("to") == YAML else FORM
    if editor.doc is None:
        target = YAML  # the YAML does not parse: stay on it and show where
    context = {
        "editor": editor,
        "state": editor.form_state() if editor.doc is not None else None,
        "yaml_text": editor.yaml_text if editor.doc is None else dump_yaml(editor.doc),
        "mode": target,
        "fleet": inventory.fleet(),
        "slots": form_slots(editor.problems),
        "yaml_problems": editor.yaml_problems() if editor.doc is None else [],
        "kinds": policy.KINDS,
        "choices": inventory.form_choices(),
    }
    return render(request, "scheduling/editor/_editor_body.html", context)


@require_POST
@role_required(OPERATOR)
def policy_save_draft(request: HttpRequest) -> HttpResponse:
    """Store the policy as a draft (not applied); it needs a name to be found again."""
    editor = read_editor(request.POST)
    if editor.doc is None:
        return HttpResponseBadRequest(_("The YAML does not parse, so there is nothing to save yet."))
    kind, namespace, name = _identity(editor.doc)
    if kind not in policy.KINDS or not name:
        return HttpResponseBadRequest(_("Give the policy a kind and a name before saving a draft."))
    save_draft(editor.doc, kind, namespace, name, request.user)
    url = _edit_url(kind, namespace, name)
    if request.htmx:
        return render(request, "scheduling/editor/_saved.html", {"url": url, "name": name})
    messages.success(request, _("Draft saved."))
    return redirect(url)


def _document_from(request: HttpRequest) -> dict[str, Any] | None:
    try:
        doc = json.loads(request.POST.get("document") or "")
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


@require_POST
@role_required(OPERATOR)
def policy_review(request: HttpRequest) -> HttpResponse:
    """The what-if before apply: every captured workload and its placement diff, then Apply."""
    editor = read_editor(request.POST)
    snapshots = inventory.fleet()
    context: dict[str, Any] = {"editor": editor, "problems": editor.problems}
    if editor.doc is None:
        context["problems"] = [
            ("", editor.yaml_problem.message if editor.yaml_problem else _("not valid YAML"))
        ]
    if not context["problems"]:
        assert editor.doc is not None
        context["whatif"] = build_whatif(editor.doc, snapshots)
        context["document"] = json.dumps(editor.doc)
        context["identity"] = _identity(editor.doc)
    status = 200 if not context["problems"] else 400
    return render(request, "scheduling/editor/_review.html", context, status=status)


@require_POST
@role_required(OPERATOR)
def policy_apply(request: HttpRequest) -> HttpResponse:
    """Apply the reviewed policy through the control plane's apply service and audit the placement diff."""
    doc = _document_from(request)
    if doc is None:
        return HttpResponseBadRequest(_("The request carries no policy document to apply."))
    problems = validate_policy(doc)
    if problems:
        text = "; ".join(f"{path}: {message}" for path, message in problems)
        return HttpResponseBadRequest(_("The policy is not valid: %(problems)s") % {"problems": text})
    try:
        outcome = apply_policy(doc, request.user)
    except ApplyError as exc:
        return HttpResponseBadRequest(_("The control plane refused the policy: %(reason)s") % {"reason": exc})
    kind, namespace, name = _identity(doc)
    messages.success(
        request,
        _("Applied %(policy)s: %(count)s workload(s) placed by it.")
        % {"policy": name, "count": len(outcome.captured)},
    )
    return redirect(_edit_url(kind, namespace, name) + "?source=applied")


@require_GET
def failure_drill(request: HttpRequest) -> HttpResponse:
    """Pick a cluster and a failure; see where each affected workload's replicas would go, and when."""
    snapshots = inventory.fleet()
    cluster = request.GET.get("cluster") or ""
    condition = request.GET.get("condition") or drilling.NOT_READY
    result = drilling.run_drill(cluster, condition, page=request.GET.get("page")) if cluster else None
    context = {
        "fleet": snapshots,
        "cluster": cluster,
        "condition": condition,
        "conditions": drilling.CONDITIONS,
        "drill": result,
    }
    status = 400 if result is not None and result.problem else 200
    return render(request, "scheduling/editor/drill.html", context, status=status)
