"""The audit log pages newest first by keyset: every entry once, in order, in both directions, with the
same queries for 60 entries as for 600, and a clear 400 for a cursor that names no entry."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from core import audit
from core.audit_log import audit_page
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


def log(count, start=0):
    return [
        audit.record(None, "update", "Deployment", f"web-{i:04d}", namespace="shop")
        for i in range(start, start + count)
    ]


def cursor(body, name):
    """The entry id in the page's Older (`before`) or Newer (`after`) link."""
    found = re.search(rf'&amp;{name}=(\d+)">(Older|Newer)</a>', body)
    return found.group(1) if found else None


def test_walking_older_then_newer_shows_every_entry_once_in_order(client, viewer):
    log(120)
    client.force_login(viewer)
    url = reverse("scheduling:audit")
    pages, older = [], ""
    while len(pages) < 4:
        body = client.get(url, {"before": older} if older else {}).content.decode()
        pages.append(re.findall(r"Deployment shop/(web-\d+)", body))
        older = cursor(body, "before")
        if older is None:
            break
    assert [len(p) for p in pages] == [50, 50, 20]
    assert [name for page in pages for name in page] == [f"web-{i:04d}" for i in range(119, -1, -1)]
    newer = cursor(body, "after")
    back = client.get(url, {"after": newer}).content.decode()
    assert re.findall(r"Deployment shop/(web-\d+)", back) == pages[1]
    assert cursor(back, "after") and cursor(back, "before")


def test_entries_written_in_the_same_instant_are_each_shown_once(monkeypatch):
    instant = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: instant)
    entries = log(7)
    assert {e.created_at for e in AuditEntry.objects.all()} == {instant}
    first = audit_page(AuditEntry.objects.all(), 3)
    second = audit_page(AuditEntry.objects.all(), 3, before=str(first.older))
    third = audit_page(AuditEntry.objects.all(), 3, before=str(second.older))
    shown = [e.pk for page in (first, second, third) for e in page.entries]
    assert shown == sorted((e.pk for e in entries), reverse=True) and third.older is None
    assert audit_page(AuditEntry.objects.all(), 3, after=str(second.newer)).entries == first.entries


def test_a_filter_pages_too_and_a_cursor_that_names_no_entry_is_a_400(client, viewer):
    log(60)
    client.force_login(viewer)
    url = reverse("scheduling:audit")
    body = client.get(url, {"q": "web-001"}).content.decode()  # web-0010 … web-0019
    assert len(re.findall(r"Deployment shop/web-", body)) == 10 and cursor(body, "before") is None
    for bad in ("999999", "soon"):
        response = client.get(url, {"before": bad})
        assert response.status_code == 400 and b"start from the newest" in response.content


def test_ten_times_the_log_takes_no_more_queries(client, viewer, django_assert_max_num_queries):
    log(60)
    client.force_login(viewer)
    url = reverse("scheduling:audit")
    older = cursor(client.get(url).content.decode(), "before")
    with django_assert_max_num_queries(100) as few:
        client.get(url, {"before": older})
    log(540, start=60)
    with django_assert_max_num_queries(len(few.captured_queries)) as many:
        client.get(url, {"before": older})
    assert not any("COUNT(" in q["sql"] and "auditentry" in q["sql"] for q in many.captured_queries)


def test_changed_fields_and_placement_chips_are_escaped_and_absent_sides_say_so(client, viewer):
    audit.record(
        None,
        "update",
        "Deployment",
        "web",
        namespace="shop",
        old={"metadata": {"labels": {"team": "<b>blue</b>"}}},
        new={"metadata": {"labels": {"owner": "x"}}},
        before={"<i>east</i>": 1},
        after={"<i>east</i>": 2},
    )
    client.force_login(viewer)
    body = client.get(reverse("scheduling:audit")).content.decode()
    assert '<code>&lt;b&gt;blue&lt;/b&gt;</code> → <span class="muted">(absent)</span>' in body
    assert '<span class="muted">(absent)</span> → <code>x</code>' in body
    assert '<span class="chip">&lt;i&gt;east&lt;/i&gt; 1 → 2</span>' in body
    assert "<b>blue</b>" not in body and "<i>east</i>" not in body
