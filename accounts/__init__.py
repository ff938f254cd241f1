"""Accounts: players (Django users with a display name) and their API tokens."""
