"""Sign-in lockouts: the client address they count, and the answer a locked-out client gets."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext


def client_address(request: HttpRequest) -> str:
    """The peer address, or the one TRUSTED_PROXY_COUNT hops from the right of X-Forwarded-For.

    The same rule as DRF's throttles (NUM_PROXIES), so a lockout and a throttle count the same client.
    """
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if not proxies or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-min(proxies, len(hops))] if hops else remote


def unlock_time(username: str | None, address: str | None, limit: int, cool_off: timedelta) -> datetime:
    """When the lockout of this user name or address ends: the later of the two that are locked.

    Each counted failure is forgotten cool_off after it; a parameter stays locked while the failures
    still remembered reach the limit, so it unlocks when enough of the oldest have been forgotten.
    """
    now = timezone.now()
    window = AccessAttempt.objects.filter(attempt_time__gte=now - cool_off)
    ends = [now]
    for field, value in (("username", username), ("ip_address", address)):
        if not value:
            continue
        rows = list(window.filter(**{field: value}).order_by("attempt_time"))
        remembered = sum(row.failures_since_start for row in rows)
        for row in rows:
            if remembered < limit:
                break
            remembered -= row.failures_since_start
            if remembered < limit:
                ends.append(row.attempt_time + cool_off)
    return max(ends)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """429 with Retry-After: JSON for the API's token endpoint, the sign-in page with the reason otherwise."""
    cool_off = get_cool_off(request) or timedelta(0)
    username = get_client_username(request, credentials)
    ends = unlock_time(
        username, getattr(request, "axes_ip_address", None), get_failure_limit(request, credentials), cool_off
    )
    seconds = max(1, math.ceil((ends - timezone.now()).total_seconds()))
    minutes = max(1, math.ceil(seconds / 60))
    message = ngettext(
        "Too many failed sign-ins for this user name or from this address. Try again in %(minutes)d minute.",
        "Too many failed sign-ins for this user name or from this address. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": message}, status=429)
    else:
        form = AuthenticationForm(request, initial={"username": username or ""})
        context: dict[str, Any] = {"form": form, "lockout": message, "next": request.POST.get("next", "")}
        response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response
