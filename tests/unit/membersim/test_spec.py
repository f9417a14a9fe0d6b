"""Cluster descriptions: the CLI's NAME:key=value form and the checks on every field."""

from __future__ import annotations

import pytest

from membersim.spec import ClusterSpec, SpecError, parse_cluster_option


def test_every_cli_option_maps_to_its_field():
    spec = parse_cluster_option(
        "beijing:nodes=5,cpu=16,memory=64Gi,pods=50,region=cn-north,zones=a|b,provider=aliyun,version=1.30.2,"
        "pod-cidr=10.1.0.0/16,service-cidr=10.96.0.0/16,node-cidr-mask-size=25,ssd=2,control-plane=1,"
        "label.env=prod,label.team/owner=infra,load=1.5,token=secret"
    )
    assert spec == ClusterSpec(
        name="beijing",
        nodes=5,
        node_cpu="16",
        node_memory="64Gi",
        node_pods=50,
        region="cn-north",
        zones=["a", "b"],
        provider="aliyun",
        version="1.30.2",
        pod_cidr="10.1.0.0/16",
        service_cidr="10.96.0.0/16",
        node_cidr_mask=25,
        ssd_nodes=2,
        control_plane_nodes=1,
        labels={"env": "prod", "team/owner": "infra"},
        load=1.5,
        token="secret",
    )
    assert parse_cluster_option("solo") == ClusterSpec(name="solo")
    assert parse_cluster_option("z:zone=only").zones == ["only"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "UPPER"}, "DNS label"),
        ({"name": "x", "nodes": -1}, "nodes must be"),
        ({"name": "x", "node_memory": "lots"}, "memory"),
        ({"name": "x", "version": "2.0"}, "version must look like"),
        ({"name": "x", "pod_cidr": "10.0.0.0/33"}, "pod-cidr"),
        ({"name": "x", "ssd_nodes": 4}, "ssd must be between"),
        ({"name": "x", "labels": {"bad key!": "v"}}, "not a valid Kubernetes label"),
        ({"name": "x", "zones": "a|b"}, "zones must be a list"),
        ({"name": "x", "load": -1}, "load must be"),
    ],
)
def test_bad_fields_name_the_problem(kwargs, message):
    with pytest.raises(SpecError, match=message):
        ClusterSpec(**kwargs)


def test_unknown_and_malformed_options_are_rejected():
    with pytest.raises(SpecError, match="unknown option 'colour'"):
        parse_cluster_option("x:colour=red")
    with pytest.raises(SpecError, match="needs a value"):
        parse_cluster_option("x:nodes")
    with pytest.raises(SpecError, match="must be an integer"):
        parse_cluster_option("x:ssd=two")
