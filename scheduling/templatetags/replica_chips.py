"""The per-cluster replica chips of a workload row, built in Python: a fleet-wide row has one per cluster,
and a template loop over them cost more than the rest of the page."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.summaries import ClusterReplicas

register = template.Library()

DOT_CLASSES = {"Healthy": "ok", "Unhealthy": "err"}


def _count(chip: ClusterReplicas) -> str:
    """ " ready/desired" (ready 0 when not reported), or nothing for a workload without replicas."""
    if chip.desired is None:
        return ""
    return f" {chip.ready or 0}/{chip.desired}"


@register.filter
def health_chips(clusters: Iterable[ClusterReplicas]) -> SafeString:
    """Chips with a health dot and the health (and apply message) as their title."""
    parts = []
    for chip in clusters:
        title = chip.health + (f": {chip.message}" if chip.message else "")
        parts.append(
            format_html(
                '<span class="chip" title="{}"><span class="dot {}"></span>{}{}</span>',
                title,
                DOT_CLASSES.get(chip.health, "warn"),
                chip.cluster,
                _count(chip),
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every part is escaped by format_html


@register.filter
def plain_chips(clusters: Iterable[ClusterReplicas]) -> SafeString:
    """Chips with the cluster and its replicas only."""
    return mark_safe(  # noqa: S308 - every part is escaped
        "".join(
            f'<span class="chip">{conditional_escape(chip.cluster)}{conditional_escape(_count(chip))}</span>'
            for chip in clusters
        )
    )
