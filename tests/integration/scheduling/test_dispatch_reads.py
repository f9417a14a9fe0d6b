"""A chunk of Works is read for its member calls without its bindings' status and placement columns."""

from __future__ import annotations

from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext

from scheduling.controllers import dispatch
from scheduling.models import ResourceBinding, Work
from scheduling.services import apply_yaml

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


def test_a_chunk_reads_its_clusters_connections_without_their_status(members):
    apply_yaml(NGINX)
    works = dispatch._held_works(sorted(Work.objects.values_list("pk", flat=True)))
    with CaptureQueriesContext(connection) as queries:
        found = dispatch._connections(works)
    assert sorted(found) == sorted({w.cluster_name for w in works})
    assert all(conn is not None and conn.server for conn, _ in found.values())
    assert len(queries.captured_queries) == 1  # no deferred column read per cluster
    assert '"status"' not in queries.captured_queries[0]["sql"]
