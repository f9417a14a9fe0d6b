"""Raw JSON requests over a cluster's ApiClient: list pages, discovery and probes without model overhead."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubernetes.client.exceptions import ApiException

from clusters.k8s import wire
from clusters.k8s.client import TimedApiClient

LIST_PAGE = 500


def request(
    client: TimedApiClient,
    method: str,
    path: str,
    query: list[tuple[str, Any]] | None = None,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> Any:
    """Send one authenticated request; the raw RESTResponse, already read (status not checked).

    The body is plain JSON already (a manifest, a patch): it goes to the REST client as it is, which
    encodes it, without the ApiClient's walk over every value looking for model objects to convert."""
    method, url, header_params, _, post_params = client.param_serialize(
        method,
        path,
        query_params=query or [],
        header_params={"Accept": "application/json", **(headers or {})},
        auth_settings=["BearerToken"],
    )
    response = client.call_api(method, url, header_params, body, post_params)
    response.read()
    return response


def get_json(
    client: TimedApiClient,
    path: str,
    query: list[tuple[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """GET a path and decode its JSON, raising ApiException on any non-2xx answer."""
    response = request(client, "GET", path, query, headers=headers)
    return decode(response)


def decode(response: Any) -> Any:
    if not 200 <= response.status <= 299:
        raise ApiException.from_response(
            http_resp=response, body=response.data.decode("utf-8", "replace"), data=None
        )
    if not response.data:
        return {}
    return wire.loads(response.data)


def list_items(client: TimedApiClient, path: str, **selectors: str) -> Iterator[dict[str, Any]]:
    """Every item of a list endpoint, following `continue` tokens page by page."""
    query: list[tuple[str, Any]] = [("limit", LIST_PAGE)]
    for name, value in selectors.items():
        if value:
            query.append((name, value))
    token = ""
    while True:
        page = get_json(client, path, query + ([("continue", token)] if token else []))
        yield from page.get("items") or []
        token = (page.get("metadata") or {}).get("continue") or ""
        if not token:
            return
