"""REST API routes of observability under /api/v1/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from observability import api

router = SimpleRouter()
router.register("alerts", api.AlertViewSet, basename="observability-alert")
router.register("silences", api.SilenceViewSet, basename="observability-silence")
router.register("alert-receivers", api.ReceiverViewSet, basename="observability-receiver")
router.register("alert-deliveries", api.DeliveryViewSet, basename="observability-delivery")

urlpatterns = [
    path("alert-rules/", api.AlertRulesExport.as_view(), name="observability-alert-rules"),
    path("network-check/", api.NetworkCheck.as_view(), name="observability-network-check"),
    *router.urls,
]
