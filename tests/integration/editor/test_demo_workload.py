"""The demo starts with the shop Deployment waiting for a policy, applied once however often it starts."""

from __future__ import annotations

import io

import pytest

from karmada_ui.demo import seed_demo_workload
from scheduling.models import ResourceTemplate


@pytest.mark.django_db
def test_the_demo_seeds_the_shop_deployment_once():
    out = io.StringIO()
    seed_demo_workload(out)
    seed_demo_workload(out)
    template = ResourceTemplate.objects.get()
    assert (template.kind, template.namespace, template.name) == ("Deployment", "default", "shop")
    assert template.manifest["spec"]["replicas"] == 10
    assert template.policy is None
    assert "Policies → New policy" in out.getvalue()
