"""A paged listing and the watch that follows it: an object made between two pages is not lost."""

from __future__ import annotations

from clusters.k8s import ClusterConnection, objects, watch
from clusters.k8s.watch import list_each, watch_kind
from membersim import ClusterSpec, Simulator


def config_map(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def test_an_object_made_between_two_pages_reaches_the_watch_from_the_listings_version(monkeypatch):
    """The member watcher lists in pages, then watches from the listing's version. A copy made after the
    first page, sorted onto it, is in no page: the watch must report it (in a 500-workload seeding such
    a copy kept its apply-time status until the next resync, 15 minutes on)."""
    with Simulator([ClusterSpec(name="beijing", nodes=1)]) as sim:
        conn = ClusterConnection(name="beijing", server=sim.endpoint("beijing"), token=sim.token("beijing"))
        for name in ("a-1", "a-2", "a-3"):
            objects.create_object(conn, config_map(name))
        monkeypatch.setattr(watch, "LIST_PAGE", 1)
        served = []
        get_json = watch.get_json

        def page_then_a_write(client, path, query):
            page = get_json(client, path, query)
            if not served and "configmaps" in path:  # after the first page, a copy it would have shown
                objects.create_object(conn, config_map("a-0"))
            served.append(page)
            return page

        monkeypatch.setattr(watch, "get_json", page_then_a_write)
        listed: list[dict] = []
        version = list_each(conn, "v1", "ConfigMap", listed.append)
        names = [item["metadata"]["name"] for item in listed]
        assert "a-0" not in names and len(served) > 2  # paged, and the new copy fell before the token
        pages = {page["metadata"]["resourceVersion"] for page in served}
        assert pages == {version}, "every page carries the first page's version, as an API server's do"
        events = list(watch_kind(conn, "v1", "ConfigMap", version, timeout_seconds=1))
        assert ("ADDED", "a-0") in [(e.type, e.object["metadata"]["name"]) for e in events]
