"""An audit entry's changed fields and placement chips built in Python: an entry of a fleet-wide change has
a row per cluster, and a template loop over them cost more than the rest of the log page."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def change_list(rows: Iterable[Mapping[str, Any]]) -> SafeString:
    """<dl> of field → before → after, "(absent)" for a side the field did not have."""
    absent = f'<span class="muted">{conditional_escape(_("(absent)"))}</span>'

    def side(value: Any) -> str:
        return absent if value is None else f"<code>{conditional_escape(value)}</code>"

    items = "".join(
        f"<dt><code>{conditional_escape(row['field'])}</code></dt>"
        f"<dd>{side(row['before'])} → {side(row['after'])}</dd>"
        for row in rows
    )
    return mark_safe(f"<dl>{items}</dl>")  # noqa: S308 - every value above is escaped


@register.filter
def placement_chips(delta: Mapping[str, Mapping[str, Any]]) -> SafeString:
    """A chip "cluster before → after" per cluster whose replicas changed."""
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'<span class="chip">{conditional_escape(cluster)} {conditional_escape(change.get("before", ""))}'
            f" → {conditional_escape(change.get('after', ''))}</span>"
            for cluster, change in delta.items()
        )
    )
