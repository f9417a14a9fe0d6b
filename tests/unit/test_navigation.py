"""The navigation marks exactly one entry active: the one whose address best matches the page."""

from django.urls import reverse

from karmada_ui.navigation import nav_links


def test_a_page_under_two_entries_activates_only_the_more_specific_one():
    fleet = reverse("clusters:fleet")
    active = [link["url"] for link in nav_links(fleet) if link["active"]]
    assert active == [fleet]


def test_a_page_outside_every_entry_activates_none():
    assert not any(link["active"] for link in nav_links("/accounts/login/"))
