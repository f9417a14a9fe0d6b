"""The fleet line in every page's header: "12 clusters · 11 Ready · 1 NotReady · 2 alerts firing"."""

from __future__ import annotations

from django.utils.translation import ngettext

from clusters.summary import fleet_summary_parts
from observability.engine import firing_count


def fleet_summary() -> str:
    """The clusters by Ready status, then the firing alerts when there are any: two queries."""
    parts = fleet_summary_parts()
    firing = firing_count()
    if firing:
        parts.append(ngettext("%(n)d alert firing", "%(n)d alerts firing", firing) % {"n": firing})
    return " · ".join(parts)
