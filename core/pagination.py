"""Limit/offset pagination that refuses a limit or offset that is not a whole number (400, not ignored)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request


class StrictLimitOffsetPagination(LimitOffsetPagination):
    # A larger limit is served as this many: one answer never holds the whole of a big fleet.
    max_limit = 500

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        for param, minimum in ((self.limit_query_param, 1), (self.offset_query_param, 0)):
            values = request.query_params.getlist(param)
            if not values:
                continue
            if len(values) > 1:
                raise ValidationError({param: ["give it once"]})
            if not values[0].isascii() or not values[0].isdigit() or int(values[0]) < minimum:
                raise ValidationError({param: [f"must be a whole number of at least {minimum}"]})
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            minimum = 1 if parameter["name"] == self.limit_query_param else 0
            parameter["schema"] = {**parameter["schema"], "minimum": minimum}
        return parameters
