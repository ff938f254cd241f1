"""Accounts' own receivers of Django's model signals.

An operator may untick "active" on a user in Django's own user admin, which does
not go through ``accounts.services.player_disable``; this notices it, so that
``account_disabled`` is sent all the same and the account's seats do not hang
until their deadlines. Whatever saves a username (a sign-up, erasing, the admin,
``createsuperuser``), its confusable skeleton is kept beside it. Whatever saves a
token, user, player or calendar address, or deletes a user, this process stops using the
account's tokens it keeps (accounts.token_cache).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from accounts.models import ApiToken, CalendarFeed, Player, UsernameSkeleton
from accounts.names import username_skeleton_digest
from accounts.signals import account_disabled
from accounts.token_cache import token_cache_forget

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


def forget_the_kept_tokens(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """The admin, a service or a shell that saves one of the rows a request's
    token comes with: the next request of this process reads them again."""
    user_id = instance.pk if sender is User else getattr(instance, "user_id", None)
    if user_id is not None and not raw:
        token_cache_forget(user_id=user_id)


for _model in (User, Player, ApiToken, CalendarFeed):
    post_save.connect(forget_the_kept_tokens, sender=_model, dispatch_uid=f"accounts.token_cache.{_model.__name__}")
# A deleted user takes its tokens, player and address with it. (Tokens and addresses
# are deleted alone only by erasing, which saves the user too; a receiver on their
# deletion would make Django read each row before deleting it.)
post_delete.connect(forget_the_kept_tokens, sender=User, dispatch_uid="accounts.token_cache.deleted_user")
