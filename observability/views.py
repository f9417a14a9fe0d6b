"""Pages of observability: the Alerts page (alerts, silences), the receivers and the network check."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import FieldErrors
from core.permissions import role_required
from core.roles import ADMIN, OPERATOR, has_role
from observability import services
from observability.expr import format_duration
from observability.forms import ReceiverForm, SilenceForm
from observability.models import Alert, AlertState, Delivery, Receiver, Silence
from observability.networking import (
    cluster_verdict,
    fleet_report,
    kind_label,
    overlap_consequence,
    overlap_sentence,
    verdict,
)
from observability.rules import alert_rules, fill_template

RECENT = timedelta(hours=24)


def _silence_initial(request: HttpRequest) -> dict[str, str]:
    """Prefill the silence form from the alert whose Silence button was pressed."""
    alert = Alert.objects.filter(pk=request.GET.get("silence_for") or 0).first()
    if alert is None:
        return {}
    labels = {k: v for k, v in alert.labels.items() if k != "severity"}
    return {"matchers": ", ".join(f"{k}={v}" for k, v in labels.items()), "duration": "2h"}


def with_summaries(alerts):
    """Give each alert its summary in the reader's language (the stored annotations stay in English)."""
    rules = {rule.alert: rule for rule in alert_rules()}
    for alert in alerts:
        rule = rules.get(alert.rule)
        summary = rule.localized_annotations()["summary"] if rule else alert.annotations.get("summary", "")
        alert.summary_text = fill_template(summary, alert.labels, alert.value or 0.0)
    return alerts


def alert_lists(request: HttpRequest, now) -> dict[str, Any]:
    silences = list(Silence.objects.filter(ends_at__gt=now))
    alerts = with_summaries(list(Alert.objects.filter(state__in=[AlertState.FIRING, AlertState.PENDING])))
    for alert in alerts:
        alert.silenced_by = next((s for s in silences if s.is_active(now) and s.matches(alert.labels)), None)
    resolved = Alert.objects.filter(state=AlertState.RESOLVED, resolved_at__gte=now - RECENT).order_by(
        "-resolved_at"
    )
    return {
        "now": now,
        "firing": sorted(
            (a for a in alerts if a.state == AlertState.FIRING), key=lambda a: a.fired_at, reverse=True
        ),
        "pending": [a for a in alerts if a.state == AlertState.PENDING],
        "resolved": with_summaries(list(resolved[:50])),
        "silences": silences,
        "expired_silences": Silence.objects.filter(ends_at__lte=now, ends_at__gte=now - RECENT)[:20],
        "deliveries": Delivery.objects.select_related("alert", "receiver")[:20],
        "can_silence": has_role(request.user, OPERATOR),
        "can_admin": has_role(request.user, ADMIN),
    }


def _page(request: HttpRequest, silence_form: SilenceForm, status: int = 200) -> HttpResponse:
    context = alert_lists(request, timezone.now())
    context.update(
        silence_form=silence_form,
        rules=[
            {"rule": rule, "promql": rule.expr.promql(), "for": format_duration(rule.for_seconds)}
            for rule in alert_rules()
        ],
        receivers=Receiver.objects.all(),
    )
    return render(request, "observability/alerts.html", context, status=status)


@require_GET
def alerts(request: HttpRequest) -> HttpResponse:
    if request.htmx and request.htmx.target == "alert-lists":
        return render(request, "observability/_alert_lists.html", alert_lists(request, timezone.now()))
    return _page(request, SilenceForm(initial=_silence_initial(request)))


@require_GET
def firing_panel(request: HttpRequest) -> HttpResponse:
    """The firing alerts in short, as a fragment other pages (the fleet health tiles) include."""
    firing = with_summaries(list(Alert.objects.filter(state=AlertState.FIRING).order_by("-fired_at")[:20]))
    return render(request, "observability/_firing_panel.html", {"firing": firing})


@require_POST
@role_required(OPERATOR)
def silence_create(request: HttpRequest) -> HttpResponse:
    form = SilenceForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    silence = services.create_silence(data["matchers"], data["duration"], data["comment"], request.user)
    messages.success(
        request,
        _("Silenced %(matchers)s until %(end)s.")
        % {"matchers": silence, "end": timezone.localtime(silence.ends_at).strftime("%Y-%m-%d %H:%M")},
    )
    return redirect("observability:alerts")


@require_POST
@role_required(OPERATOR)
def silence_expire(request: HttpRequest, pk: int) -> HttpResponse:
    silence = get_object_or_404(Silence, pk=pk)
    if services.expire_silence(silence, request.user):
        messages.success(request, _("The silence of %(matchers)s has expired.") % {"matchers": silence})
    return redirect("observability:alerts")


@role_required(ADMIN)
def receivers(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """List receivers and add one (no pk), or edit one."""
    instance = get_object_or_404(Receiver, pk=pk) if pk else None
    form = ReceiverForm(request.POST or None, instance=instance)
    if request.method == "POST":
        if form.is_valid():
            data = {field: form.cleaned_data[field] for field in services.RECEIVER_FIELDS}
            try:
                if instance is None:
                    receiver = services.create_receiver(data, request.user)
                else:
                    receiver = services.update_receiver(instance, data, request.user)
            except FieldErrors as exc:
                for field, errors in exc.errors.items():
                    for error in errors:
                        form.add_error(field if field in form.fields else None, error)
            else:
                messages.success(request, _("Receiver %(name)s saved.") % {"name": receiver.name})
                return redirect("observability:receivers")
        status = 400
    else:
        status = 200
    context = {"form": form, "editing": instance, "receivers": Receiver.objects.all()}
    return render(request, "observability/receivers.html", context, status=status)


@require_POST
@role_required(ADMIN)
def receiver_delete(request: HttpRequest, pk: int) -> HttpResponse:
    receiver = get_object_or_404(Receiver, pk=pk)
    services.delete_receiver(receiver, request.user)
    messages.success(request, _("Receiver %(name)s deleted.") % {"name": receiver.name})
    return redirect("observability:receivers")


def _overlap_rows(overlaps) -> list[dict[str, Any]]:
    return [
        {
            "overlap": o,
            "kind_a": kind_label(o.kind_a),
            "kind_b": kind_label(o.kind_b),
            "sentence": overlap_sentence(o),
            "meaning": overlap_consequence(o),
        }
        for o in overlaps
    ]


@require_GET
def network(request: HttpRequest) -> HttpResponse:
    report = fleet_report()
    context = {"report": report, "verdict": verdict(report), "overlaps": _overlap_rows(report.overlaps)}
    return render(request, "observability/network.html", context)


@require_GET
def network_panel(request: HttpRequest, name: str) -> HttpResponse:
    """The network check of one cluster, as a fragment the cluster detail page includes."""
    report = fleet_report()
    cluster = next((c for c in report.clusters if c.name == name), None)
    if cluster is None:
        raise Http404(_("No cluster is called %(name)s.") % {"name": name})
    context = {
        "cluster": cluster,
        "verdict": cluster_verdict(report, name),
        "overlaps": _overlap_rows(report.for_cluster(name)),
    }
    return render(request, "observability/_network_panel.html", context)
