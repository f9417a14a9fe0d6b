"""OpenAPI descriptions of the scheduling API's bodies, for drf-spectacular (the views build plain dicts)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
NULLABLE_OBJECT: dict[str, Any] = {"type": "object", "nullable": True}
REF: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": STRING, "namespace": STRING, "name": STRING},
}
FIELD_ERROR: dict[str, Any] = {
    "type": "object",
    "properties": {"field": STRING, "reason": STRING},
    "required": ["field", "reason"],
}
DOCUMENT_ERROR: dict[str, Any] = {
    "type": "object",
    "properties": {"document": INTEGER, "field": STRING, "reason": STRING},
    "required": ["document", "field", "reason"],
}
APPLY_RESULT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "objects": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": STRING,
                    "namespace": STRING,
                    "name": STRING,
                    "action": STRING,
                    "note": STRING,
                },
                "required": ["kind", "namespace", "name", "action"],
            },
        }
    },
    "required": ["objects"],
}
WORKLOAD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": INTEGER,
        "apiVersion": STRING,
        "kind": STRING,
        "namespace": STRING,
        "name": STRING,
        "uid": STRING,
        "policy": {**REF, "nullable": True},
        "binding": {**REF, "nullable": True},
        "replicas": INTEGER,
        "scheduled": NULLABLE_OBJECT,
        "schedulePriority": {"type": "integer", "nullable": True},
        "suspension": NULLABLE_OBJECT,
        "workloadAffinityGroups": NULLABLE_OBJECT,
        "clusters": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "cluster": STRING,
                    "desired": {"type": "integer", "nullable": True},
                    "ready": {"type": "integer", "nullable": True},
                    "health": STRING,
                    "applied": {"type": "boolean"},
                    "message": STRING,
                },
            },
        },
    },
    "required": ["id", "kind", "namespace", "name", "replicas", "clusters"],
}
WORKLOAD_CHAIN: dict[str, Any] = {
    **WORKLOAD,
    "properties": {
        **WORKLOAD["properties"],
        "why": {},
        "strategy": {},
        "bindingDocument": NULLABLE_OBJECT,
        "works": {"type": "array", "items": {"type": "object"}},
        "events": {"type": "array", "items": {"type": "object"}},
    },
}
POLICY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": INTEGER,
        "document": {"type": "object"},
        "workloads": {
            "type": "array",
            "items": {**REF, "properties": {**REF["properties"], "id": INTEGER}},
        },
    },
    "required": ["id", "document", "workloads"],
}
AUDIT_ENTRY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "at": {"type": "string", "format": "date-time"},
        "user": STRING,
        "action": STRING,
        "object": REF,
        "summary": STRING,
        "placementDelta": {},
    },
}
REBALANCED: dict[str, Any] = {
    "type": "object",
    "properties": {"rebalanced": INTEGER},
    "required": ["rebalanced"],
}
PREVIEW_REQUEST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "policy": {
            "description": "the PropagationPolicy or ClusterPropagationPolicy, as YAML text or an object",
            "oneOf": [STRING, {"type": "object"}],
        },
        "workload": {"type": "integer", "description": "the id of a resource template"},
    },
    "required": ["policy", "workload"],
}
PREVIEW: dict[str, Any] = {
    "type": "object",
    "properties": {
        "workload": {**REF, "properties": {**REF["properties"], "id": INTEGER}},
        "replicas": INTEGER,
        "divisionMethod": STRING,
        "plan": {"type": "object"},
        "sentences": {"type": "array"},
        "methodsDiffer": {"type": "boolean"},
        "alternative": {"type": "object"},
        "quota": {**NULLABLE_OBJECT, "description": "the FederatedResourceQuota check of the split"},
        "cost": {**NULLABLE_OBJECT, "description": "the split's estimated cost from cluster price labels"},
    },
    "required": ["workload", "replicas", "plan"],
}
QUANTITIES: dict[str, Any] = {"type": "object", "additionalProperties": STRING}
QUOTA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "namespace": STRING,
        "name": STRING,
        "document": {"type": "object", "description": "the FederatedResourceQuota with its status now"},
        "resources": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "resource": STRING,
                    "limit": STRING,
                    "used": STRING,
                    "percent": INTEGER,
                    "over": {"type": "boolean"},
                    "counted": {"type": "boolean"},
                },
            },
        },
        "workloads": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": INTEGER,
                    "kind": STRING,
                    "name": STRING,
                    "usage": QUANTITIES,
                    "refused": {"type": "string", "description": "the QuotaExceeded message, if refused"},
                },
            },
        },
    },
    "required": ["namespace", "name", "document", "resources", "workloads"],
}
SUSPENSION_REQUEST: dict[str, Any] = {
    "type": "object",
    "description": (
        "Pause (true) or resume (false) the workload's scheduling, or its dispatching; with cluster, "
        "dispatching to that one cluster only. One of scheduling or dispatching."
    ),
    "properties": {
        "scheduling": {"type": "boolean"},
        "dispatching": {"type": "boolean"},
        "cluster": {"type": "string", "minLength": 1},
    },
    "minProperties": 1,
    "additionalProperties": False,
}
SUSPENSION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "suspended": {"type": "boolean"},
        "scheduling": {"type": "boolean"},
        "dispatching": {"type": "boolean"},
        "dispatchingOnClusters": {"type": "array", "items": STRING},
        "byOperator": {"type": "object"},
        "byPolicy": {"type": "object"},
    },
    "required": ["suspended", "scheduling", "dispatching", "dispatchingOnClusters"],
}
PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, description="how many to return (at least 1)"),
    OpenApiParameter("offset", int, description="how many to skip"),
]
NOT_FOUND = OpenApiResponse(description="no such object")
PAGE_ERROR = OpenApiResponse(
    {"type": "object", "additionalProperties": {"type": "array", "items": STRING}},
    description="a bad limit or offset: {parameter: [reason]}",
)


def page_of(item: dict[str, Any]) -> dict[str, Any]:
    """The limit/offset page envelope around a list of `item`."""
    link = {"type": "string", "format": "uri", "nullable": True}
    return {
        "type": "object",
        "properties": {
            "count": INTEGER,
            "next": link,
            "previous": link,
            "results": {"type": "array", "items": item},
        },
        "required": ["count", "results"],
    }


def bad_request(schema: dict[str, Any] = FIELD_ERROR) -> OpenApiResponse:
    """The field and the reason, or DRF's {"detail": ...} when the body is not JSON at all."""
    detail = {"type": "object", "properties": {"detail": STRING}, "required": ["detail"]}
    return OpenApiResponse({"anyOf": [schema, detail]}, description="the field and the reason")
