"""Project-level pages: the home page and a liveness probe for load balancers."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse


def home(request: HttpRequest) -> HttpResponse:
    """Send the operator to the cluster list, the product's front page, once it exists."""
    try:
        return redirect(reverse("clusters:list"))
    except NoReverseMatch:
        return render(request, "home.html")


@login_not_required
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")
