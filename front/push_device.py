"""The settings page's "Push notifications on this device" section
(front/_push_device.html, front/static/front/push_device.js): a button that
subscribes this browser to Web Push through the site's service worker
(front.pwa) and sends the subscription to the account's API
(notifications.push), and one that turns it off. Which news comes by push is
the push preferences' business, beside the game email's.
"""

from __future__ import annotations

import json

from django.utils.translation import gettext

from accounts.pages import CONTENT_SECURITY_POLICY

# The section's script asks the API and registers the service worker: this
# site's own, nothing inline.
SETTINGS_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY + "; script-src 'self'; connect-src 'self'; worker-src 'self'"


def push_device_words() -> str:
    """What the section's script says, in the page's language: JSON for its data-words."""
    return json.dumps(
        {
            "on": gettext("Push is on for this device."),
            "off": gettext("Push is off for this device."),
            "working": gettext("Asking the browser…"),
            "denied": gettext(
                "Notifications are blocked for this site in this browser. Allow them in the browser's settings "
                "for this site, then try again."
            ),
            "unavailable": gettext("This site does not send push notifications: its operator has not set them up."),
            "failed": gettext("Push could not be turned on in this browser. Try again later."),
            "off_failed": gettext("Push could not be turned off. Try again later."),
        },
        ensure_ascii=False,
    )
