"""The Alerts page lists firing, pending and resolved alerts; operators silence; admins set receivers."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clusters.models import ReadyState
from observability import engine
from observability.models import Alert, Receiver, Silence

ALERTS = reverse("observability:alerts")


@pytest.fixture
def alerts_now(settings, make_cluster):
    """beijing firing, shanghai pending, guangzhou resolved."""
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 60
    start = timezone.now() - timedelta(minutes=5)
    make_cluster("beijing", ready=ReadyState.FALSE)
    guangzhou = make_cluster("guangzhou", ready=ReadyState.FALSE)
    engine.evaluate(start)
    engine.evaluate(start + timedelta(seconds=60))
    guangzhou.ready = ReadyState.TRUE
    guangzhou.save()
    make_cluster("shanghai", ready=ReadyState.UNKNOWN)
    engine.evaluate()


@pytest.mark.django_db
def test_a_viewer_sees_each_list_and_the_rules_but_no_silence_form(client, viewer, alerts_now):
    client.force_login(viewer)
    page = client.get(ALERTS).content.decode()
    firing = page.split('id="firing-alerts"')[1].split("</table>")[0]
    pending = page.split('id="pending-alerts"')[1].split("</table>")[0]
    resolved = page.split('id="resolved-alerts"')[1].split("</table>")[0]
    assert "member_cluster=beijing" in firing and "Cluster beijing is not Ready" in firing
    assert 'href="/clusters/c/beijing/"' in firing  # the cluster label leads to the cluster
    assert "member_cluster=shanghai" in pending
    assert "member_cluster=guangzhou" in resolved
    assert "cluster_ready_state == 0" in page
    assert "?format=prometheusrule" in page
    assert 'id="new-silence"' not in page
    assert "Silence</a>" not in page


@pytest.mark.django_db
def test_the_live_refresh_returns_only_the_lists(client, viewer, alerts_now):
    client.force_login(viewer)
    fragment = client.get(ALERTS, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="alert-lists").content.decode()
    assert 'id="firing-alerts"' in fragment
    assert "<html" not in fragment


@pytest.mark.django_db
def test_an_operator_silences_a_firing_alert_from_its_button_and_expires_it_early(
    client, operator, alerts_now
):
    client.force_login(operator)
    beijing = Alert.objects.get(labels__member_cluster="beijing", state="firing")
    page = client.get(ALERTS, {"silence_for": beijing.pk}).content.decode()
    assert "alertname=ClusterUnhealthy, member_cluster=beijing" in page

    response = client.post(
        reverse("observability:silence-create"),
        {
            "matchers": "alertname=ClusterUnhealthy, member_cluster=beijing",
            "duration": "2h",
            "comment": "node swap",
        },
    )
    assert response.status_code == 302
    silence = Silence.objects.get()
    assert silence.matchers == {"alertname": "ClusterUnhealthy", "member_cluster": "beijing"}
    assert silence.created_by == operator.username
    assert timedelta(minutes=119) < silence.ends_at - silence.starts_at <= timedelta(hours=2)
    listed = client.get(ALERTS).content.decode()
    assert "node swap" in listed.split('id="firing-alerts"')[1].split("</table>")[0]

    assert client.post(reverse("observability:silence-expire", args=[silence.pk])).status_code == 302
    silence.refresh_from_db()
    assert silence.ends_at <= timezone.now()
    assert not silence.is_active(timezone.now())


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        ({"matchers": "member_cluster", "duration": "2h", "comment": "x"}, "matchers", "is not label=value"),
        ({"matchers": "9x=y", "duration": "2h", "comment": "x"}, "matchers", "is not a label name"),
        ({"matchers": "a=b", "duration": "soon", "comment": "x"}, "duration", "Use a duration"),
        ({"matchers": "a=b", "duration": "90d", "comment": "x"}, "duration", "at most 30 days"),
        ({"matchers": "a=b", "duration": "1h", "comment": ""}, "comment", "required"),
    ],
)
def test_a_bad_silence_is_refused_with_the_reason_and_nothing_saved(client, operator, form, field, reason):
    client.force_login(operator)
    response = client.post(reverse("observability:silence-create"), form)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert field in response.context["silence_form"].errors
    assert not Silence.objects.exists()


@pytest.mark.django_db
def test_a_viewer_may_not_create_silences_nor_see_receivers(client, viewer):
    client.force_login(viewer)
    form = {"matchers": "a=b", "duration": "1h", "comment": "x"}
    assert client.post(reverse("observability:silence-create"), form).status_code == 403
    assert client.get(reverse("observability:receivers")).status_code == 403


@pytest.mark.django_db
def test_an_admin_adds_edits_and_deletes_receivers(client, admin_user):
    client.force_login(admin_user)
    url = reverse("observability:receivers")
    response = client.post(
        url,
        {
            "name": "ops",
            "kind": "webhook",
            "url": "https://hooks.example/ops",
            "send_resolved": "on",
            "enabled": "on",
        },
    )
    assert response.status_code == 302
    receiver = Receiver.objects.get()
    assert (receiver.kind, receiver.url, receiver.send_resolved) == (
        "webhook",
        "https://hooks.example/ops",
        True,
    )

    edit = reverse("observability:receiver-edit", args=[receiver.pk])
    response = client.post(
        edit, {"name": "ops", "kind": "email", "emails": "a@example.com, b@example.com", "enabled": "on"}
    )
    assert response.status_code == 302
    receiver.refresh_from_db()
    assert receiver.emails == ["a@example.com", "b@example.com"]
    assert "a@example.com" in client.get(url).content.decode()

    assert client.post(reverse("observability:receiver-delete", args=[receiver.pk])).status_code == 302
    assert not Receiver.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"name": "x", "kind": "webhook"}, "url"),
        ({"name": "x", "kind": "webhook", "url": "ftp://files.example/x"}, "url"),
        ({"name": "x", "kind": "email", "emails": ""}, "emails"),
        ({"name": "x", "kind": "email", "emails": "not-an-address"}, "emails"),
        ({"name": "x", "kind": "pager"}, "kind"),
    ],
)
def test_a_bad_receiver_is_refused_naming_the_field(client, admin_user, form, field):
    client.force_login(admin_user)
    response = client.post(reverse("observability:receivers"), form)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not Receiver.objects.exists()


@pytest.mark.django_db
def test_the_navigation_shows_alerts(client, viewer):
    client.force_login(viewer)
    assert f'href="{ALERTS}"' in client.get(ALERTS).content.decode()


@pytest.mark.django_db
def test_the_page_queries_stay_bounded_with_many_alerts(
    client, viewer, settings, make_cluster, django_assert_max_num_queries
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    for n in range(30):
        make_cluster(f"c{n}", ready=ReadyState.FALSE)
    engine.evaluate()
    client.force_login(viewer)
    with django_assert_max_num_queries(15):
        assert client.get(ALERTS).status_code == 200


@pytest.mark.django_db
def test_the_header_line_counts_the_firing_alerts(settings, make_cluster):
    from karmada_ui.header import fleet_summary

    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing")
    assert "firing" not in fleet_summary()
    make_cluster("shanghai", ready=ReadyState.FALSE)
    make_cluster("guangzhou", ready=ReadyState.FALSE)
    engine.evaluate()
    assert fleet_summary().endswith(" · 2 alerts firing")


@pytest.mark.django_db
def test_the_fleet_page_loads_the_firing_alerts_beside_its_tiles(client, viewer, alerts_now):
    client.force_login(viewer)
    fleet = client.get(reverse("clusters:fleet")).content.decode()
    assert reverse("observability:firing-panel") in fleet
    panel = client.get(reverse("observability:firing-panel")).content.decode()
    assert "Cluster beijing is not Ready" in panel
    assert "shanghai" not in panel and "guangzhou" not in panel  # pending and resolved are not firing


@pytest.mark.django_db
def test_summaries_show_in_the_readers_language_while_the_stored_annotations_stay_english(
    client, viewer, alerts_now
):
    from django.utils import translation

    client.force_login(viewer)
    try:
        page = client.get(ALERTS, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    finally:
        translation.activate("en")
    assert "集群 beijing 未就绪" in page
    assert Alert.objects.get(labels__member_cluster="beijing", state="firing").annotations["summary"] == (
        "Cluster beijing is not Ready"
    )
