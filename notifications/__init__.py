"""Reserved for playing by email: turn emails, reminders and parsing replies.

Not built yet; the app is installed but empty. Sign-up codes are sent by the
accounts services, not from here.
"""
