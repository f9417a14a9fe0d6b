"""Every write leaves exactly one audit entry with who, what and the diff; never a secret; never changed."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import yaml
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from clusters import services as clusters
from clusters.joining import JoinRequest
from clusters.k8s import ClusterConnection
from clusters.models import Cluster, LabelConvention
from core.models import AuditEntry, AuditEntryImmutable
from membersim import ClusterSpec
from observability import services as observability
from observability.models import Receiver
from scheduling import services as scheduling
from scheduling.editor.applying import save_draft
from scheduling.models import (
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
    Rollout,
    TemplateRevision,
    Work,
)
from tests.integration.test_bad_input import run_command

pytestmark = pytest.mark.django_db

KEY_MARK = "KEY-77c1-SECRET"
HOOK_SECRET = "T000/B000/XXXXsecretXXXX"
SECRET_VALUE = "c3VwZXItc2VjcmV0LXBhc3N3b3Jk"
SHOP = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 4
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: nginx}]}
"""
POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""
SECRET = f"""apiVersion: v1
kind: Secret
metadata: {{name: db, namespace: default}}
data: {{password: {SECRET_VALUE}}}
"""


@pytest.fixture
def sim(simulate):
    return simulate(ClusterSpec(name="beijing", nodes=1), ClusterSpec(name="shanghai", nodes=1))


def connection_to(sim, name: str) -> ClusterConnection:
    """A connection with the simulator's token, which the audit must never show."""
    return ClusterConnection(name=name, server=sim.endpoint(name), token=sim.token(name))


class Walk:
    """Runs one verb at a time and checks that it left exactly one entry (or `count`) with a diff."""

    def __init__(self, user):
        self.user = user
        self.seen: list[str] = []

    def step(self, verb: str, call, action: str, kind: str, name: str | None, count: int = 1):
        before = set(AuditEntry.objects.values_list("id", flat=True))
        result = call()
        new = list(AuditEntry.objects.exclude(id__in=before).order_by("id"))
        assert len(new) == count, (verb, [(e.action, e.object_name) for e in new])
        for entry in new:
            assert (entry.action, entry.object_kind) == (action, kind), verb
            assert entry.username == (self.user.username if self.user else ""), verb
            assert entry.changes, f"{verb} left no diff"
        assert name is None or new[-1].object_name == name, verb
        self.seen.append(verb)
        return result


def test_every_service_verb_leaves_one_audit_entry_with_its_diff(sim, operator, admin_user):
    walk = Walk(admin_user)
    beijing, _, _ = walk.step(
        "join",
        lambda: clusters.join(
            "beijing", connection_to(sim, "beijing"), labels={"env": "prod"}, user=admin_user
        ),
        "Joined",
        "Cluster",
        "beijing",
    )
    joined = AuditEntry.objects.get(action="Joined")
    assert joined.changes["labels"] == {"after": {"env": "prod"}}
    assert joined.changes["authentication"] == {"after": "token"}
    walk.step(
        "join --update",
        lambda: clusters.join(
            "beijing", connection_to(sim, "beijing"), labels={"tier": "gold"}, update=True, user=admin_user
        ),
        "Updated",
        "Cluster",
        "beijing",
    )
    assert AuditEntry.objects.get(action="Updated").changes == {"labels.tier": {"after": "gold"}}
    [(shanghai, _)] = walk.step(
        "join many",
        lambda: clusters.join_many(
            [JoinRequest("shanghai", connection_to(sim, "shanghai"))], user=admin_user
        ),
        "Joined",
        "Cluster",
        "shanghai",
    )
    beijing.refresh_from_db()
    walk.step(
        "set labels",
        lambda: clusters.set_labels(
            beijing, {"env": "production"}, beijing.resource_version, user=admin_user
        ),
        "LabelsChanged",
        "Cluster",
        "beijing",
    )
    assert AuditEntry.objects.filter(action="LabelsChanged").first().changes == {
        "labels.env": {"before": "prod", "after": "production"},
        "labels.tier": {"before": "gold"},
    }
    walk.step(
        "patch labels",
        lambda: clusters.patch_labels(beijing, {"location/region": "cn-north"}, user=admin_user),
        "LabelsChanged",
        "Cluster",
        "beijing",
    )
    assert AuditEntry.objects.filter(action="LabelsChanged").first().changes == {
        'labels["location/region"]': {"after": "cn-north"}
    }
    walk.step(
        "bulk labels (an entry per cluster)",
        lambda: clusters.bulk_patch_labels(["beijing", "shanghai"], {"team": "web"}, [], user=admin_user),
        "LabelsChanged",
        "Cluster",
        "shanghai",
        count=2,
    )
    walk.step(
        "add a taint",
        lambda: clusters.add_taint(beijing, "dedicated", "gpu", "NoSchedule", user=admin_user),
        "TaintAdded",
        "Cluster",
        "beijing",
    )
    assert AuditEntry.objects.filter(action="TaintAdded").first().changes == {
        "taints": {"before": [], "after": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    }
    walk.step(
        "remove a taint",
        lambda: clusters.remove_taint(beijing, "dedicated", user=admin_user),
        "TaintRemoved",
        "Cluster",
        "beijing",
    )
    walk.step("cordon", lambda: clusters.cordon(beijing, user=admin_user), "TaintAdded", "Cluster", "beijing")
    walk.step(
        "uncordon", lambda: clusters.uncordon(beijing, user=admin_user), "TaintRemoved", "Cluster", "beijing"
    )
    rule = walk.step(
        "create a convention",
        lambda: clusters.create_convention({"key": "team/owner", "pattern": "^[a-z-]+$"}, user=admin_user),
        "ConventionSaved",
        "LabelConvention",
        "team/owner",
    )
    walk.step(
        "update a convention",
        lambda: clusters.update_convention(rule, {"description": "who runs it"}, user=admin_user),
        "ConventionSaved",
        "LabelConvention",
        "team/owner",
    )
    assert AuditEntry.objects.filter(action="ConventionSaved").first().changes == {
        "description": {"before": "", "after": "who runs it"}
    }
    walk.step(
        "fix a lint finding (env=production is env=prod)",
        lambda: clusters.fix_finding(beijing, "value", "env", user=admin_user) or pytest.fail("no fix"),
        "LabelsChanged",
        "Cluster",
        "beijing",
    )
    assert AuditEntry.objects.filter(action="LabelsChanged").first().changes == {
        "labels.env": {"before": "production", "after": "prod"}
    }
    walk.step(
        "delete a convention",
        lambda: clusters.delete_convention(rule, user=admin_user),
        "ConventionDeleted",
        "LabelConvention",
        "team/owner",
    )
    assert not LabelConvention.objects.filter(key="team/owner").exists()

    silence = walk.step(
        "create a silence",
        lambda: observability.create_silence({"alertname": "ClusterUnhealthy"}, 3600, "upgrade", admin_user),
        "SilenceCreated",
        "Silence",
        None,
    )
    assert AuditEntry.objects.filter(action="SilenceCreated").get().object_name == str(silence.pk)
    walk.step(
        "expire a silence",
        lambda: observability.expire_silence(silence, admin_user),
        "SilenceExpired",
        "Silence",
        str(silence.pk),
    )
    assert list(AuditEntry.objects.filter(action="SilenceExpired").first().changes) == ["ends_at"]
    hook = f"https://hooks.example.com/services/{HOOK_SECRET}"
    receiver = walk.step(
        "create a receiver",
        lambda: observability.create_receiver({"name": "ops", "kind": "webhook", "url": hook}, admin_user),
        "ReceiverCreated",
        "Receiver",
        "ops",
    )
    walk.step(
        "update a receiver",
        lambda: observability.update_receiver(receiver, {"send_resolved": False}, admin_user),
        "ReceiverChanged",
        "Receiver",
        "ops",
    )
    walk.step(
        "delete a receiver",
        lambda: observability.delete_receiver(receiver, admin_user),
        "ReceiverDeleted",
        "Receiver",
        "ops",
    )
    assert not Receiver.objects.exists()

    walk.user = operator
    walk.step(
        "apply a template",
        lambda: scheduling.apply_yaml(SHOP, user=operator),
        "apply:created",
        "Deployment",
        "shop",
    )
    walk.step(
        "apply a changed template",
        lambda: scheduling.apply_yaml(SHOP.replace("replicas: 4", "replicas: 6"), user=operator),
        "apply:configured",
        "Deployment",
        "shop",
    )
    assert AuditEntry.objects.filter(action="apply:configured").first().changes == {
        "spec.replicas": {"before": 4, "after": 6}
    }
    walk.step(
        "apply a policy",
        lambda: scheduling.apply_yaml(POLICY, user=operator),
        "apply:created",
        "PropagationPolicy",
        "shop",
    )
    document = yaml.safe_load(POLICY.replace("[beijing]", "[beijing, shanghai]"))
    walk.step(
        "save a draft",
        lambda: save_draft(document, "PropagationPolicy", "default", "shop", operator),
        "draft:saved",
        "PropagationPolicy",
        "shop",
    )
    walk.step(
        "apply a reviewed policy (a draft applied)",
        lambda: scheduling.apply_reviewed_policy(
            document,
            [("Deployment default/shop", {"beijing": 6}, {"beijing": 3, "shanghai": 3})],
            user=operator,
        ),
        "apply:configured",
        "PropagationPolicy",
        "shop",
    )
    reviewed = AuditEntry.objects.filter(object_kind="PropagationPolicy").first()
    assert reviewed.changes["spec.placement.clusterAffinity.clusterNames"] == {
        "before": ["beijing"],
        "after": ["beijing", "shanghai"],
    }
    assert reviewed.placement_delta == {
        "beijing": {"before": 6, "after": 3},
        "shanghai": {"before": 0, "after": 3},
    }
    template = ResourceTemplate.objects.get(name="shop")
    policy = PropagationPolicy.objects.get(name="shop")
    binding = ResourceBinding.objects.create(
        template=template, policy=policy, namespace="default", name="shop-deployment", placement={}
    )
    walk.step(
        "rebalance",
        lambda: scheduling.rebalance([binding], user=operator),
        "rebalance",
        "Deployment",
        "shop",
    )
    later = timezone.now() + timedelta(seconds=1)
    walk.step(
        "rebalance a policy",
        lambda: scheduling.rebalance_policy(policy, user=operator, now=later),
        "rebalance",
        "Deployment",
        "shop",
    )
    walk.step(
        "pause a workload's scheduling",
        lambda: scheduling.set_hold(binding, scheduling.SCHEDULING, True, user=operator),
        "pause-scheduling",
        "Deployment",
        "shop",
    )
    assert AuditEntry.objects.get(action="pause-scheduling").changes == {
        "suspension": {"before": None, "after": {"scheduling": True}}
    }
    Work.objects.create(
        binding=binding,
        cluster_name="beijing",
        namespace="karmada-es-beijing",
        name="default-shop-deployment",
        manifest=template.manifest,
        desired_hash="by-hand",
    )
    walk.step(
        "re-apply a member copy whose repair is held",
        lambda: scheduling.reapply_copy(binding, "beijing", user=operator),
        "reapply",
        "Deployment",
        "shop",
    )
    revision = TemplateRevision.objects.get(template=template, generation=template.generation)
    rollout = Rollout.objects.create(binding=binding, from_revision=revision, to_revision=revision)
    walk.step(
        "pause a staged rollout",
        lambda: scheduling.step_rollout(rollout, "pause", user=operator),
        "rollout.pause",
        "Deployment",
        "shop",
    )
    assert AuditEntry.objects.get(action="rollout.pause").changes == {
        "phase": {"before": "Progressing", "after": "Paused"}
    }
    walk.step(
        "delete a template",
        lambda: scheduling.delete_template(template, user=operator),
        "delete",
        "Deployment",
        "shop",
    )
    walk.step(
        "apply parsed objects (the Kubernetes API)",
        lambda: scheduling.apply_objects(
            [yaml.safe_load(POLICY.replace("name: shop", "name: kube"))], operator
        ),
        "apply:created",
        "PropagationPolicy",
        "kube",
    )
    walk.step(
        "delete a policy",
        lambda: scheduling.delete_policy(PropagationPolicy.objects.get(name="kube"), user=operator),
        "delete",
        "PropagationPolicy",
        "kube",
    )

    walk.step(
        "write through the cluster proxy",
        lambda: clusters.proxy_request(
            beijing,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            headers={"Content-Type": "application/json"},
            body=json.dumps({"kind": "ConfigMap", "metadata": {"name": "proxied"}}).encode(),
            user=operator,
        ),
        "ClusterProxyWrite",
        "Cluster",
        "beijing",
    )
    walk.user = admin_user
    walk.step("unjoin", lambda: clusters.unjoin(shanghai, user=admin_user), "Unjoined", "Cluster", "shanghai")
    assert AuditEntry.objects.get(action="Unjoined").changes["api_endpoint"] == {
        "before": sim.endpoint("shanghai")
    }
    text = json.dumps(list(AuditEntry.objects.values()), default=str)
    assert sim.token("beijing") not in text and sim.token("shanghai") not in text
    assert HOOK_SECRET not in text
    assert len(walk.seen) == 34


# Each verb of the services the walk above calls; a new verb without a step there fails the next test.
WALKED = {
    "clusters": {
        "join",
        "join_many",
        "unjoin",
        "set_labels",
        "patch_labels",
        "bulk_patch_labels",
        "fix_finding",
        "add_taint",
        "remove_taint",
        "cordon",
        "uncordon",
        "create_convention",
        "update_convention",
        "delete_convention",
        "proxy_request",
    },
    "observability": {
        "create_silence",
        "expire_silence",
        "create_receiver",
        "update_receiver",
        "delete_receiver",
    },
    "scheduling": {
        "apply_yaml",
        "apply_objects",
        "apply_reviewed_policy",
        "delete_policy",
        "delete_template",
        "rebalance",
        "rebalance_policy",
        "set_hold",
        "reapply_copy",
        "step_rollout",
        "save_rebalancer",
        "delete_rebalancer",
    },
}


def test_the_walk_covers_every_verb_of_every_services_module():
    import inspect

    for module in (clusters, observability, scheduling):
        verbs = {
            name
            for name, value in inspect.getmembers(module, inspect.isfunction)
            if value.__module__ == module.__name__ and not name.startswith("_")
        }
        assert verbs == WALKED[module.__name__.split(".")[0]], module.__name__


def test_a_secret_template_and_a_webhook_url_show_that_they_changed_never_their_values(operator, admin_user):
    scheduling.apply_yaml(SECRET, user=operator)
    scheduling.apply_yaml(SECRET.replace(SECRET_VALUE, "bmV3LXBhc3N3b3Jk"), user=operator)
    changed = AuditEntry.objects.get(action="apply:configured")
    assert changed.changes == {"data.password": {"before": "(redacted)", "after": "(redacted)"}}
    created = AuditEntry.objects.get(action="apply:created")
    assert created.changes["data"] == {"after": {"password": "(redacted)"}}
    receiver = observability.create_receiver(
        {"name": "ops", "kind": "webhook", "url": f"https://hooks.example.com/{HOOK_SECRET}"}, admin_user
    )
    observability.update_receiver(receiver, {"url": "https://hooks.example.com/another/secret"}, admin_user)
    entry = AuditEntry.objects.get(action="ReceiverChanged")
    assert entry.changes == {
        "url": {
            "before": "https://hooks.example.com/(redacted)",
            "after": "https://hooks.example.com/(redacted)",
        }
    }
    text = json.dumps(list(AuditEntry.objects.values()), default=str)
    assert SECRET_VALUE not in text and "bmV3LXBhc3N3b3Jk" not in text and "another/secret" not in text


def test_a_join_with_a_token_and_a_client_key_keeps_both_out_of_the_log(sim, admin_user):
    conn = ClusterConnection(
        name="beijing",
        server=sim.endpoint("beijing"),
        token=sim.token("beijing"),
        client_cert_data=b"-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n",
        client_key_data=f"-----BEGIN PRIVATE KEY-----\n{KEY_MARK}\n-----END PRIVATE KEY-----\n".encode(),
    )
    clusters.join("beijing", conn, user=admin_user)
    clusters.join("beijing", conn, labels={"env": "prod"}, update=True, user=admin_user)
    clusters.unjoin(Cluster.objects.get(name="beijing"), user=admin_user)
    entries = list(AuditEntry.objects.values("changes", "summary"))
    assert len(entries) == 3
    text = json.dumps(entries)
    assert conn.token not in text and KEY_MARK not in text and "CERT" not in text
    assert AuditEntry.objects.get(action="Joined").changes["authentication"] == {
        "after": "client certificate"
    }


def test_the_same_change_through_the_page_the_api_and_a_command_is_audited_once_each(
    client, api_as, operator, admin_user, sim, tmp_path
):
    kubeconfig = sim.write_kubeconfig(tmp_path / "kubeconfig")
    status, _, err = run_command("join", "beijing", "--kubeconfig", str(kubeconfig), "--context", "beijing")
    assert status == 0, err
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.username, entry.object_name) == ("Joined", "", "beijing")
    cluster = Cluster.objects.get(name="beijing")

    client.force_login(operator)
    response = client.post(
        reverse("clusters:labels", args=["beijing"]),
        {"key": ["env"], "value": ["prod"], "resource_version": cluster.resource_version},
    )
    assert response.status_code == 302
    page_entry = AuditEntry.objects.order_by("-id").first()
    assert (page_entry.action, page_entry.username) == ("LabelsChanged", operator.username)
    assert page_entry.changes == {"labels.env": {"after": "prod"}}

    response = api_as(operator).patch(
        "/api/v1/clusters/beijing/labels/", {"set": {"env": "dev"}}, format="json"
    )
    assert response.status_code == 200
    api_entry = AuditEntry.objects.order_by("-id").first()
    assert api_entry.changes == {"labels.env": {"before": "prod", "after": "dev"}}
    listed = api_as(operator).get("/api/v1/audit/").json()["results"][0]
    assert listed["changes"] == api_entry.changes and listed["user"] == operator.username
    page = client.get(reverse("scheduling:audit")).content.decode()
    assert "labels.env" in page and "prod" in page and "dev" in page
    assert AuditEntry.objects.count() == 3


# ---------------------------------------------------------------------------------------- immutable


@pytest.fixture
def entry(admin_user):
    return AuditEntry.objects.create(
        username=admin_user.username, action="x", object_kind="K", object_name="n"
    )


def test_an_audit_entry_cannot_be_changed_or_deleted_through_the_model(entry):
    entry.summary = "rewritten"
    with pytest.raises(AuditEntryImmutable):
        entry.save()
    with pytest.raises(AuditEntryImmutable):
        entry.delete()
    with pytest.raises(AuditEntryImmutable):
        AuditEntry.objects.filter(pk=entry.pk).update(summary="rewritten")
    with pytest.raises(AuditEntryImmutable):
        AuditEntry.objects.all().delete()
    with pytest.raises(AuditEntryImmutable), transaction.atomic():
        AuditEntry.objects.bulk_update([entry], ["summary"])
    entry.refresh_from_db()
    assert entry.summary == ""


def test_the_admin_shows_audit_entries_read_only(client, entry):
    from django.contrib.auth import get_user_model

    root = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(root)
    change_url = reverse("admin:core_auditentry_change", args=[entry.pk])
    page = client.get(change_url)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    client.post(change_url, {"summary": "rewritten", "action": "y"})
    assert (
        client.post(reverse("admin:core_auditentry_delete", args=[entry.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert client.get(reverse("admin:core_auditentry_add")).status_code == 403
    entry.refresh_from_db()
    assert (entry.summary, entry.action) == ("", "x")
    assert client.get(reverse("admin:core_auditentry_changelist")).status_code == 200


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
def test_postgresql_refuses_an_update_or_delete_of_an_entry_behind_the_app(entry):
    for sql in (
        "UPDATE karmada_ui_auditentry SET summary = 'rewritten' WHERE id = %s",
        "DELETE FROM karmada_ui_auditentry WHERE id = %s",
    ):
        with pytest.raises(Exception, match="audit entries cannot be changed or deleted"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, [entry.pk])
    assert AuditEntry.objects.filter(pk=entry.pk, summary="").exists()


def test_deleting_a_user_keeps_their_entries_under_their_name(entry, admin_user):
    AuditEntry.objects.create(
        user=admin_user, username=admin_user.username, action="y", object_kind="K", object_name="m"
    )
    admin_user.delete()
    kept = AuditEntry.objects.get(action="y")
    assert (kept.user_id, kept.username) == (None, "ada-admin")
