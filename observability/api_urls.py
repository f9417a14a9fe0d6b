"""REST API routes of observability under /api/v1/."""

from django.urls import path

from observability import api

urlpatterns = [
    path("alert-rules/", api.AlertRulesExport.as_view(), name="observability-alert-rules"),
]
