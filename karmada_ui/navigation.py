"""The main navigation: each entry shows once the page it names exists."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

NAV_ITEMS = (
    (_("Clusters"), "clusters:list"),
    (_("Workloads"), "scheduling:workloads"),
    (_("Policies"), "scheduling:policies"),
    (_("Health"), "clusters:fleet"),
    (_("Alerts"), "observability:alerts"),
    (_("Network"), "observability:network"),
)


def nav_links(current_path: str) -> list[dict[str, object]]:
    links = []
    for label, url_name in NAV_ITEMS:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        links.append({"label": label, "url": url, "active": current_path.startswith(url)})
    return links
