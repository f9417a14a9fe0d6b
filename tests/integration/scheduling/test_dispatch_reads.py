"""A chunk of Works is read for its member calls without its bindings' and clusters' status columns."""

from __future__ import annotations

from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.k8s import ClusterConnection
from scheduling.controllers import dispatch
from scheduling.models import ResourceBinding, Work
from scheduling.services import apply_yaml
from tests.support.clusters import schedulable_status

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()


def test_a_chunk_reads_its_bindings_once_and_only_what_a_member_call_needs(members):
    apply_yaml(NGINX)
    ids = sorted(Work.objects.values_list("pk", flat=True))
    binding = ResourceBinding.objects.get()
    assert binding.aggregated_status and binding.clusters  # what a whole binding row would carry along
    with CaptureQueriesContext(connection) as queries:
        works = dispatch._held_works(ids)
        overwrite = [w.binding.conflict_resolution for w in works]
    assert [w.pk for w in works] == ids and overwrite == [binding.conflict_resolution] * len(ids)
    assert len(queries.captured_queries) == 2  # the Works, then their bindings: none per Work
    binding_reads = [q["sql"] for q in queries.captured_queries if "resourcebinding" in q["sql"]]
    assert len(binding_reads) == 1
    assert "aggregated_status" not in binding_reads[0] and '"clusters"' not in binding_reads[0]


def test_a_chunks_clusters_are_read_without_their_status_and_new_credentials_are_used(make_cluster):
    cluster = make_cluster("rotating", status=schedulable_status())
    cluster.set_connection(ClusterConnection(name="rotating", server="https://one.example:6443", token="a"))
    cluster.save()
    works = [Work(cluster_name="rotating"), Work(cluster_name="unregistered")]
    with CaptureQueriesContext(connection) as queries:
        first = dispatch._connections(works)
    assert set(first) == {"rotating"} and first["rotating"][0].token == "a"
    assert '"status"' not in queries.captured_queries[0]["sql"]
    assert dispatch._connections(works)["rotating"][0] is first["rotating"][0]  # decrypted once
    cluster.set_connection(ClusterConnection(name="rotating", server="https://two.example:6443", token="b"))
    cluster.save()
    conn, problem = dispatch._connections(works)["rotating"]
    assert (conn.server, conn.token, problem) == ("https://two.example:6443", "b", "")


def test_unreadable_credentials_are_a_problem_of_their_cluster_only(make_cluster):
    make_cluster("broken", credentials="not a token")
    make_cluster("fine")
    found = dispatch._connections([Work(cluster_name="broken"), Work(cluster_name="fine")])
    assert found["broken"][0] is None and "cannot be read" in found["broken"][1]
    assert found["fine"] == (found["fine"][0], "") and found["fine"][0] is not None
