"""The main navigation: each entry shows once the page it names exists."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

NAV_ITEMS = (
    (_("Clusters"), "clusters:list"),
    (_("Workloads"), "scheduling:workloads"),
    (_("Policies"), "scheduling:policies"),
    (_("Quotas"), "scheduling:quotas"),
    (_("Health"), "clusters:fleet"),
    (_("Alerts"), "observability:alerts"),
    (_("Network"), "observability:network"),
)


def nav_links(current_path: str) -> list[dict[str, object]]:
    links = []
    for label, url_name in NAV_ITEMS:
        try:
            links.append({"label": label, "url": reverse(url_name), "active": False})
        except NoReverseMatch:
            continue
    # The entry whose address is the longest prefix of the current page is the active one.
    matching = [link for link in links if current_path.startswith(str(link["url"]))]
    if matching:
        max(matching, key=lambda link: len(str(link["url"])))["active"] = True
    return links
