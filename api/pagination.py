"""Pagination of the API's lists: DRF's limit/offset with a ceiling on the page."""

from __future__ import annotations

from rest_framework import pagination


class LimitOffsetPagination(pagination.LimitOffsetPagination):
    # A larger limit is served as this one. Without a ceiling one request could
    # read every row, and a limit beyond 2**63 reaches PostgreSQL as a LIMIT it
    # refuses, which made a silly query string a server error.
    max_limit = 100
