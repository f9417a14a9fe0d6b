"""A workload row's clusters as chips built in Python from its binding's stored counts (clusters healthy,
unhealthy, failed): one row costs the same whatever the size of the fleet."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scheduling.karmada.work_counts import WorkCounts

register = template.Library()


@register.filter
def health_counts(counts: WorkCounts) -> SafeString:
    """The target clusters counted by health, each count a chip with its dot, and the failed applies."""
    words = ngettext("%(count)d cluster", "%(count)d clusters", counts.clusters) % {"count": counts.clusters}
    parts = [format_html('<span class="chip">{}</span>', words)]
    for number, dot, label in (
        (counts.healthy, "ok", _("Healthy")),
        (counts.unhealthy, "err", _("Unhealthy")),
        (counts.unknown, "warn", _("Unknown")),
    ):
        if number:
            parts.append(
                format_html(
                    '<span class="chip" title="{}"><span class="dot {}"></span>{} {}</span>',
                    label,
                    dot,
                    number,
                    label.lower(),
                )
            )
    if counts.failed:
        failed = ngettext("%(count)d apply failed", "%(count)d applies failed", counts.failed)
        parts.append(format_html('<span class="badge err">{}</span>', failed % {"count": counts.failed}))
    pending = counts.clusters - counts.applied - counts.failed
    if pending:
        text = _("%(count)d not applied yet") % {"count": pending}
        parts.append(format_html('<span class="badge warn">{}</span>', text))
    return mark_safe(" ".join(parts))  # noqa: S308 - every part is escaped by format_html
