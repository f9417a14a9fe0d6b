"""Joining connects first: a good context is saved with what the cluster reported, a bad one saves nothing."""

import pytest
import yaml
from django.core.management import CommandError, call_command

from clusters.models import Cluster, ClusterEvent
from membersim import ClusterSpec

pytestmark = pytest.mark.django_db


@pytest.fixture
def beijing(simulate):
    return simulate(
        ClusterSpec(
            name="beijing", nodes=5, region="cn-north", zones=["cn-north-a", "cn-north-b"], provider="aliyun"
        )
    )


def join(kubeconfig, name="beijing", **options):
    call_command("join", name, kubeconfig=str(kubeconfig), context=options.pop("context", name), **options)


def test_join_saves_endpoint_credentials_labels_and_the_topology_of_the_nodes(beijing, member_kubeconfig):
    join(member_kubeconfig(beijing), label=["env=prod", "location/region=cn-north"])
    cluster = Cluster.objects.get(name="beijing")
    assert cluster.api_endpoint == beijing.endpoint("beijing")
    assert cluster.connection().token == beijing.token("beijing")
    assert cluster.labels == {"env": "prod", "location/region": "cn-north"}
    assert (cluster.provider, cluster.region, cluster.zones) == (
        "aliyun",
        "cn-north",
        ["cn-north-a", "cn-north-b"],
    )
    assert (cluster.kubernetes_version, cluster.nodes_total, cluster.nodes_ready) == ("v1.31.4", 5, 5)
    assert cluster.ready == "True"
    assert ClusterEvent.objects.filter(cluster=cluster, reason="Joined").exists()


def test_join_prints_the_version_and_node_count(beijing, member_kubeconfig, capsys):
    join(member_kubeconfig(beijing))
    assert "Joined beijing: v1.31.4, 5/5 nodes Ready" in capsys.readouterr().out


def test_given_provider_and_region_win_over_the_node_labels(beijing, member_kubeconfig):
    join(member_kubeconfig(beijing), provider="onprem", region="north", zones=["z1"])
    cluster = Cluster.objects.get()
    assert (cluster.provider, cluster.region, cluster.zones, cluster.zone) == (
        "onprem",
        "north",
        ["z1"],
        "z1",
    )


def test_joining_twice_fails_unless_asked_to_update(beijing, member_kubeconfig):
    path = member_kubeconfig(beijing)
    join(path, label=["env=prod"])
    with pytest.raises(CommandError, match="already joined"):
        join(path)
    join(path, label=["tier=gold"], update=True)
    cluster = Cluster.objects.get()
    assert cluster.labels == {"env": "prod", "tier": "gold"}
    assert cluster.resource_version == 2


def test_update_takes_the_fresh_token_of_a_restarted_cluster(simulate, member_kubeconfig, tmp_path):
    first = simulate(ClusterSpec(name="beijing", token="old-token"))
    join(member_kubeconfig(first))
    first.stop()
    second = simulate(ClusterSpec(name="beijing", token="new-token"))
    path = second.write_kubeconfig(tmp_path / "second")
    join(path, update=True)
    cluster = Cluster.objects.get()
    assert cluster.connection().token == "new-token"
    assert cluster.api_endpoint == second.endpoint("beijing")


def test_an_unreachable_endpoint_saves_nothing_and_says_why(beijing, member_kubeconfig):
    path = member_kubeconfig(beijing)
    beijing.stop()
    with pytest.raises(
        CommandError, match=r"^beijing: Cannot connect to the API server at http://127\.0\.0\.1:\d+"
    ):
        join(path)
    assert not Cluster.objects.exists()


def test_a_rejected_token_saves_nothing_and_says_why(beijing, member_kubeconfig, tmp_path):
    config = yaml.safe_load(member_kubeconfig(beijing).read_text())
    config["users"][0]["user"]["token"] = "forged"
    path = tmp_path / "forged"
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(CommandError, match="rejected the credentials"):
        join(path)
    assert not Cluster.objects.exists()


def test_a_malformed_kubeconfig_gives_one_line(tmp_path):
    path = tmp_path / "bad"
    path.write_text("clusters: [\n")
    with pytest.raises(
        CommandError, match=r"^beijing: The kubeconfig is not valid YAML \(line \d+, column \d+\)\.$"
    ):
        join(path)


def test_a_missing_context_bad_label_or_bad_name_is_refused(beijing, member_kubeconfig):
    path = member_kubeconfig(beijing)
    with pytest.raises(CommandError, match="no context named 'nowhere'"):
        join(path, context="nowhere")
    with pytest.raises(CommandError, match="--label 'env': expected key=value"):
        join(path, label=["env"])
    with pytest.raises(CommandError, match="lowercase letters"):
        join(path, name="BeiJing", context="beijing")
    assert not Cluster.objects.exists()


def test_the_command_exits_non_zero_with_one_line(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "manage.py", "join", "x", "--kubeconfig", str(tmp_path / "absent")],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0
    assert "cannot read the kubeconfig" in result.stderr


def test_unjoin_removes_the_cluster_and_optionally_what_karmada_ui_placed_there(beijing, member_kubeconfig):
    from clusters.k8s.client import api_client
    from clusters.k8s.rest import get_json, request

    join(member_kubeconfig(beijing))
    conn = Cluster.objects.get().connection()
    client = api_client(conn, 5)
    for name, managed in (("placed", True), ("theirs", False)):
        labels = {"karmada.io/managed": "true"} if managed else {}
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}
        assert request(client, "POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    call_command("unjoin", "beijing", delete_resources=True)
    assert not Cluster.objects.exists()
    names = [
        i["metadata"]["name"] for i in get_json(client, "/api/v1/namespaces/default/configmaps")["items"]
    ]
    assert "theirs" in names and "placed" not in names


def test_join_over_tls_verifies_the_server_with_the_kubeconfigs_ca(simulate, member_kubeconfig, tmp_path):
    sim = simulate(ClusterSpec(name="beijing", nodes=2), tls=True)
    path = member_kubeconfig(sim)
    assert sim.endpoint("beijing").startswith("https://")
    config = yaml.safe_load(path.read_text())
    del config["clusters"][0]["cluster"]["certificate-authority-data"]
    untrusted = tmp_path / "untrusted"
    untrusted.write_text(yaml.safe_dump(config))
    with pytest.raises(
        CommandError, match=r"TLS handshake with https://127\.0\.0\.1:\d+ failed: .*certificate verify failed"
    ):
        join(untrusted)
    join(path)
    cluster = Cluster.objects.get()
    assert cluster.connection().ca_data == sim.ca_pem().encode()
    assert cluster.nodes_total == 2


def test_all_contexts_join_every_cluster_in_one_transaction_and_announce_them_once(
    simulate, member_kubeconfig, capsys
):
    from clusters import signals

    sim = simulate(*(ClusterSpec(name=name, nodes=2) for name in ("east-1", "east-2", "west-1")))
    announced = []

    def receiver(sender, clusters, **_):
        announced.append(sorted(cluster.name for cluster in clusters))

    signals.clusters_joined.connect(receiver, sender=Cluster, dispatch_uid="test.joined")
    try:
        call_command("join", kubeconfig=str(member_kubeconfig(sim)), all_contexts=True, label=["fleet=east"])
    finally:
        signals.clusters_joined.disconnect(dispatch_uid="test.joined", sender=Cluster)
    assert announced == [["east-1", "east-2", "west-1"]]
    clusters = {c.name: c for c in Cluster.objects.all()}
    assert set(clusters) == {"east-1", "east-2", "west-1"}
    assert all(
        c.labels == {"fleet": "east"} and c.ready == "True" and c.nodes_total == 2 for c in clusters.values()
    )
    assert clusters["west-1"].connection().token == sim.token("west-1")
    assert ClusterEvent.objects.filter(reason="Joined").count() == 3
    assert "Joined 3 clusters." in capsys.readouterr().out


def test_all_contexts_save_nothing_when_one_cluster_does_not_answer_or_is_joined(simulate, member_kubeconfig):
    sim = simulate(ClusterSpec(name="east-1"), ClusterSpec(name="east-2"))
    path = member_kubeconfig(sim)
    join(path, name="east-2", context="east-2")
    with pytest.raises(CommandError, match="Already joined: east-2"):
        call_command("join", kubeconfig=str(path), all_contexts=True)
    Cluster.objects.all().delete()
    sim.stop()
    with pytest.raises(CommandError, match=r"east-1: Cannot connect .*; east-2: Cannot connect"):
        call_command("join", kubeconfig=str(path), all_contexts=True)
    assert not Cluster.objects.exists()


def test_all_contexts_refuses_a_name_or_a_context(beijing, member_kubeconfig):
    path = str(member_kubeconfig(beijing))
    with pytest.raises(CommandError, match="give no NAME"):
        call_command("join", "beijing", kubeconfig=path, all_contexts=True)
    with pytest.raises(CommandError, match="give the cluster's NAME, or --all-contexts"):
        call_command("join", kubeconfig=path)
    with pytest.raises(CommandError, match="no context"):
        call_command("join", kubeconfig=str(_empty_kubeconfig(path)), all_contexts=True)
    assert not Cluster.objects.exists()


def _empty_kubeconfig(path):
    from pathlib import Path

    empty = Path(path).with_name("empty")
    config = yaml.safe_load(Path(path).read_text())
    config["contexts"] = []
    empty.write_text(yaml.safe_dump(config))
    return empty
