"""A template keeps its last revisions (and any a rollout points at) so rollouts can hold and abort."""

from __future__ import annotations

from scheduling.models import ResourceBinding, ResourceTemplate, Rollout, TemplateRevision
from scheduling.services import apply_yaml
from tests.e2e.test_staged_rollout import web


def generations():
    return sorted(TemplateRevision.objects.values_list("generation", flat=True))


def test_each_new_generation_is_kept_and_a_label_change_updates_the_revision_in_place(db):
    apply_yaml(web("1.0"))
    apply_yaml(web("2.0"))
    assert generations() == [1, 2]
    apply_yaml(web("2.0").replace('labels: {release: "2.0"}', 'labels: {release: "2.0", team: a}'))
    assert generations() == [1, 2]  # metadata alone is no new generation
    latest = TemplateRevision.objects.get(generation=2)
    assert latest.manifest["metadata"]["labels"]["team"] == "a"
    assert (
        TemplateRevision.objects.get(generation=1).manifest["spec"]["template"]["spec"]["containers"][0][
            "image"
        ]
        == "shop/web:1.0"
    )


def test_only_the_last_ten_are_kept_besides_those_a_rollout_points_at(db):
    apply_yaml(web("1.0"))
    template = ResourceTemplate.objects.get(name="web")
    binding = ResourceBinding.objects.create(template=template, namespace="shop", name="web-deployment")
    first = TemplateRevision.objects.get(generation=1)
    Rollout.objects.create(binding=binding, from_revision=first, to_revision=first)
    for version in range(2, 15):
        apply_yaml(web(f"{version}.0"))
    assert generations() == [1, *range(5, 15)]
