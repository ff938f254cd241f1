"""Accounts' own receivers of Django's model signals.

An operator may untick "active" on a user in Django's own user admin, which does
not go through ``accounts.services.player_disable``; this notices it, so that
``account_disabled`` is sent all the same and the account's seats do not hang
until their deadlines. Whatever saves a username (a sign-up, erasing, the admin,
``createsuperuser``), its confusable skeleton is kept beside it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts.models import Player, UsernameSkeleton
from accounts.names import username_skeleton_digest
from accounts.signals import account_disabled

User = get_user_model()


@receiver(pre_save, sender=User, dispatch_uid="accounts.user_deactivated")
def announce_an_account_made_inactive(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    if instance.pk is None or instance.is_active or getattr(instance, "_disabling_announced", False):
        return  # new, active, or a service that announces it itself
    if update_fields is not None and "is_active" not in update_fields:
        return  # e.g. last_login on sign-in: is_active is not being written
    was_active = User.objects.filter(pk=instance.pk, is_active=True).exists()
    if was_active:
        user_id = instance.pk
        transaction.on_commit(lambda: account_disabled.send(sender=User, user_id=user_id))


@receiver(pre_save, sender=User, dispatch_uid="accounts.user_email_changed")
def forget_a_bounce_when_the_address_changes(
    sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any
) -> None:
    """Mail to an address that bounced stops (Player.email_undeliverable_at) until
    the player has another address: whichever way it changes (today the admin),
    the warning and the stop go with the old address."""
    if instance.pk is None or (update_fields is not None and "email" not in update_fields):
        return
    old = User.objects.filter(pk=instance.pk).values_list("email", flat=True).first()
    if old is not None and old.strip().lower() != (instance.email or "").strip().lower():
        Player.objects.filter(user_id=instance.pk, email_undeliverable_at__isnull=False).update(
            email_undeliverable_at=None, email_undeliverable_reason=""
        )


@receiver(post_save, sender=User, dispatch_uid="accounts.username_skeleton")
def keep_the_username_skeleton(
    sender: Any, instance: Any, update_fields: Any = None, raw: bool = False, **kwargs: Any
) -> None:
    if raw or (update_fields is not None and "username" not in update_fields):
        return  # fixtures load their own rows; e.g. last_login on sign-in leaves the username as it was
    UsernameSkeleton.objects.update_or_create(
        user_id=instance.pk, defaults={"digest": username_skeleton_digest(instance.get_username())}
    )
