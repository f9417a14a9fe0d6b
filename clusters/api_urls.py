"""REST API routes of clusters under /api/v1/."""

from rest_framework.routers import SimpleRouter

from clusters import api

router = SimpleRouter()
router.register("clusters", api.ClusterViewSet, basename="cluster")
router.register("conventions", api.ConventionViewSet, basename="convention")
router.register("lint", api.LintViewSet, basename="lint")

urlpatterns = router.urls
