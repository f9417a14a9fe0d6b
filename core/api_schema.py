"""drf-spectacular's schema generation, with the API's one error shape declared on every operation."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse

from core.api_errors import ErrorSerializer

ERRORS = {
    "400": "the field and the reason",
    "403": "not signed in, or the role does not allow this",
    "404": "no such object",
}


class AutoSchema(SpectacularAutoSchema):
    """Adds the refusals every /api/v1/ operation can answer, in the shape of ErrorSerializer."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        codes = ["403"]
        if self.method != "GET" or self._is_list_view():
            codes.append("400")  # a body to validate, or limit and offset
        if "{" in self.path:
            codes.append("404")
        for code in codes:
            if code not in responses:
                error = OpenApiResponse(ErrorSerializer, description=ERRORS[code])
                responses[code] = self._get_response_for_code(error, code, direction=direction)
        return responses
