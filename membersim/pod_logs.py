"""The pods/log subresource: which container and which run of it, the PodLogOptions (tailLines, since,
timestamps, limitBytes, previous, follow) and the errors the API server and the kubelet answer with."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from membersim import errors
from membersim.logs import Instance, LogStore, timestamp

TRUE = ("true", "1")


@dataclass(frozen=True)
class LogOptions:
    container: str
    follow: bool
    previous: bool
    timestamps: bool
    tail_lines: int | None
    limit_bytes: int | None
    since: str | None  # an RFC 3339 timestamp with nine fraction digits, compared as text


def _integer(query: Any, key: str) -> int | None:
    text = query.get(key)
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise errors.bad_request(f'{key}: Invalid value: "{text}": must be an integer') from None


def _flag(query: Any, key: str) -> bool:
    text = query.get(key)
    if text not in ("", "true", "false", "1", "0"):
        raise errors.bad_request(f'{key}: Invalid value: "{text}": must be true or false')
    return text in TRUE


def options(query: Any, pod: dict[str, Any]) -> LogOptions:
    """The request's PodLogOptions, validated as ValidatePodLogOptions does (422 Invalid)."""
    name = pod["metadata"]["name"]
    tail, limit, since_seconds = (
        _integer(query, "tailLines"),
        _integer(query, "limitBytes"),
        _integer(query, "sinceSeconds"),
    )
    since_time = query.get("sinceTime")
    problems = []
    if tail is not None and tail < 0:
        problems.append(
            ("tailLines", "FieldValueInvalid", f"Invalid value: {tail}: must be greater than or equal to 0")
        )
    if limit is not None and limit < 1:
        problems.append(
            ("limitBytes", "FieldValueInvalid", f"Invalid value: {limit}: must be greater than 0")
        )
    if since_seconds is not None and since_time:
        problems.append(
            (
                "sinceSeconds",
                "FieldValueForbidden",
                "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
            )
        )
    elif since_seconds is not None and since_seconds < 1:
        problems.append(
            ("sinceSeconds", "FieldValueInvalid", f"Invalid value: {since_seconds}: must be greater than 0")
        )
    if problems:
        raise errors.invalid_kind("PodLogOptions", name, problems)
    since = None
    if since_seconds is not None:
        since = timestamp(time.time_ns() - since_seconds * 10**9)
    elif since_time:
        try:
            parsed = datetime.fromisoformat(since_time.replace("Z", "+00:00"))
        except ValueError:
            raise errors.bad_request(
                f'sinceTime: Invalid value: "{since_time}": must be an RFC 3339 time'
            ) from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        since = timestamp(int(parsed.timestamp() * 10**9))
    return LogOptions(
        container=choose_container(pod, query.get("container")),
        follow=_flag(query, "follow"),
        previous=_flag(query, "previous"),
        timestamps=_flag(query, "timestamps"),
        tail_lines=tail,
        limit_bytes=limit,
        since=since,
    )


def choose_container(pod: dict[str, Any], wanted: str) -> str:
    """The container a request means: the one named, or the only one (the API server's rules)."""
    name = pod["metadata"]["name"]
    spec = pod.get("spec") or {}
    containers = [c["name"] for c in spec.get("containers") or []]
    init = [c["name"] for c in spec.get("initContainers") or []]
    if wanted:
        if wanted not in containers and wanted not in init:
            raise errors.bad_request(f"container {wanted} is not valid for pod {name}")
        return wanted
    if len(containers) == 1:
        return containers[0]
    if not containers:
        raise errors.bad_request(f"a container name must be specified for pod {name}")
    message = f"a container name must be specified for pod {name}, choose one of: [{' '.join(containers)}]"
    if init:
        message += f" or one of the init containers: [{' '.join(init)}]"
    raise errors.bad_request(message)


def find_run(logs: LogStore, pod: dict[str, Any], chosen: LogOptions) -> Instance | None:
    """The run whose log the request reads, as the kubelet picks it; None for a pod on no node yet."""
    name, namespace = pod["metadata"]["name"], pod["metadata"]["namespace"]
    if not (pod.get("spec") or {}).get("nodeName"):
        return None  # the API server has no kubelet to ask and answers with an empty log
    statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("containerStatuses") or []}
    status = statuses.get(chosen.container) or {}
    state, last = status.get("state") or {}, (status.get("lastState") or {}).get("terminated") or {}
    where = f'container "{chosen.container}" in pod "{name}"'
    if chosen.previous:
        if not last.get("containerID"):
            raise errors.bad_request(
                f'previous terminated container "{chosen.container}" in pod "{name}" not found'
            )
        container_id = last["containerID"]
    elif "running" in state or "terminated" in state:
        container_id = status.get("containerID", "")
    elif last.get("containerID"):
        container_id = last["containerID"]
    else:
        reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
        detail = {
            "ErrImagePull": "image can't be pulled",
            "ImagePullBackOff": "trying and failing to pull image",
        }
        raise errors.bad_request(f"{where} is waiting to start: {detail.get(reason, reason)}")
    run = logs.instance(namespace, name, chosen.container, container_id)
    if run is None:
        raise errors.bad_request(f"{where} is terminated")
    return run


def render(lines: list[str], chosen: LogOptions) -> list[bytes]:
    """The lines as the kubelet sends them: since-filtered, tailed, with or without their timestamps."""
    if chosen.since is not None:
        lines = [line for line in lines if line[:30] >= chosen.since]
    if chosen.tail_lines is not None:
        lines = lines[len(lines) - chosen.tail_lines :] if chosen.tail_lines else []
    return [(line if chosen.timestamps else line[31:]).encode() + b"\n" for line in lines]


def limited(chunks: list[bytes], remaining: int | None) -> tuple[list[bytes], int | None]:
    """At most ``remaining`` bytes of ``chunks`` (limitBytes may cut a line), and what is left."""
    if remaining is None:
        return chunks, None
    kept = []
    for chunk in chunks:
        if remaining <= 0:
            break
        kept.append(chunk[:remaining])
        remaining -= len(kept[-1])
    return kept, remaining
