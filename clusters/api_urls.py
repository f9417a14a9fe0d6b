"""REST API routes of clusters under /api/v1/."""

from rest_framework.routers import SimpleRouter

from clusters import api

router = SimpleRouter()
router.register("clusters", api.ClusterViewSet, basename="cluster")

urlpatterns = router.urls
