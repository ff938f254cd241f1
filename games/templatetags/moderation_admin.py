"""Template tags for the admin's front page (games.admin sets its index template)."""

from __future__ import annotations

from django import template

from games.selectors import AdminCounts, admin_dashboard_counts

register = template.Library()


@register.simple_tag
def games_dashboard_counts() -> AdminCounts:
    return admin_dashboard_counts()
