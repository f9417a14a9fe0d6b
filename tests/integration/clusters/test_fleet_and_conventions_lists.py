"""The fleet tiles and the conventions' violations are lists like the others: a label-selector filter,
an order, pages, and empty states that say what to do next."""

import pytest
from django.urls import reverse

from tests.support.clusters import make_fleet

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet(make_cluster):
    make_cluster("alpha", labels={"env": "prod"})
    make_cluster("bravo", ready="False", labels={"env": "dev"})
    make_cluster("charlie", labels={"env": "prod"})


def tiles(body):
    return [part.split('"', 1)[0] for part in body.split('data-cluster="')[1:]]


def test_the_fleet_filters_by_label_selector_and_orders_worst_first_or_by_name(client, viewer, fleet):
    client.force_login(viewer)
    url = reverse("clusters:fleet")
    assert tiles(client.get(url).content.decode())[:3] == ["bravo", "alpha", "charlie"]
    assert tiles(client.get(url, {"sort": "name"}).content.decode())[:3] == ["alpha", "bravo", "charlie"]
    body = client.get(
        url, {"selector": "env=prod"}, headers={"HX-Request": "true", "HX-Target": "fleet-tiles"}
    )
    body = body.content.decode()
    assert "<html" not in body and tiles(body) == ["alpha", "charlie"] and "2 clusters of 3" in body


def test_the_fleet_reports_a_bad_selector_and_an_empty_match(client, viewer, fleet):
    client.force_login(viewer)
    body = client.get(reverse("clusters:fleet"), {"selector": "env in (a=b)"}).content.decode()
    assert 'id="selector-error"' in body and "expected a value" in body
    body = client.get(reverse("clusters:fleet"), {"selector": "env=staging"}).content.decode()
    assert 'data-testid="fleet-empty"' in body and "Clear the filter" in body


def test_the_fleet_is_paginated(client, viewer, settings):
    make_fleet(105, prefix="c")
    client.force_login(viewer)
    first = client.get(reverse("clusters:fleet"), {"sort": "name"}).content.decode()
    second = client.get(reverse("clusters:fleet"), {"sort": "name", "page": 2}).content.decode()
    assert len(tiles(first)) == 100 and tiles(second) == ["c-101", "c-102", "c-103", "c-104", "c-105"]
    assert "Page 1 of 2" in first


def test_an_empty_fleet_says_where_to_join_a_cluster(client, viewer):
    client.force_login(viewer)
    body = client.get(reverse("clusters:fleet")).content.decode()
    assert 'data-testid="fleet-empty"' in body and "Join one from the cluster list." in body


def test_violations_filter_by_label_selector(client, viewer, fleet):
    client.force_login(viewer)
    url = reverse("clusters:conventions")
    body = client.get(url).content.decode()
    assert all(f'id="lint-{name}"' in body for name in ("alpha", "bravo", "charlie"))
    body = client.get(url, {"selector": "env=dev"}).content.decode()
    assert 'id="lint-bravo"' in body and 'id="lint-alpha"' not in body
    body = client.get(url, {"selector": "env=staging"}).content.decode()
    assert 'data-testid="violations-empty"' in body and "Clear the filter" in body
    body = client.get(url, {"selector": "env in (a=b)"}).content.decode()
    assert 'id="selector-error"' in body


def test_violations_are_paginated(client, viewer):
    make_fleet(55, prefix="c")
    client.force_login(viewer)
    first = client.get(reverse("clusters:conventions")).content.decode()
    second = client.get(reverse("clusters:conventions"), {"page": 2}).content.decode()
    assert first.count('id="lint-c') == 50 and second.count('id="lint-c') == 5 and "Page 2 of 2" in second


def test_the_fleet_lists_the_last_failovers_and_reschedules_with_links_to_their_workloads(client, viewer):
    from scheduling import events
    from scheduling.models import ResourceBinding, ResourceTemplate

    template = ResourceTemplate.objects.create(
        api_version="apps/v1", api_group="apps", kind="Deployment", namespace="shop", name="web", manifest={}
    )
    binding = ResourceBinding.objects.create(namespace="shop", name="web-deployment", template=template)
    events.record(binding, "Warning", "EvictWorkloadFromCluster", "evicted from beijing: taint NoExecute")
    events.record(binding, "Normal", "RescheduleByLoad", "moved 2 replicas from beijing to shanghai")
    events.record(binding, "Normal", "ScheduleBindingSucceed", "scheduled")
    client.force_login(viewer)
    assert f'hx-get="{reverse("scheduling:moves")}"' in client.get(reverse("clusters:fleet")).content.decode()
    body = client.get(reverse("scheduling:moves"), headers={"HX-Request": "true"}).content.decode()
    moves = body[body.index('data-testid="moves"') :]
    assert "moved 2 replicas from beijing to shanghai" in moves and "evicted from beijing" in moves
    assert "ScheduleBindingSucceed" not in moves
    assert f'href="{reverse("scheduling:workload", args=[template.pk])}"' in moves
    assert "<html" not in body and "RescheduleByLoad" in body


def test_a_fleet_without_moves_says_what_would_move_replicas(client, viewer):
    client.force_login(viewer)
    body = client.get(reverse("scheduling:moves")).content.decode()
    assert "No workload has been failed over or rescheduled yet" in body
