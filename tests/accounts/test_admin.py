"""The admin shows tokens without secrets and can revoke them."""

from accounts.models import ApiToken


def test_token_admin_page_never_shows_the_secret_or_hash(staff_client, alice_play_token):
    token, plain = alice_play_token
    page = staff_client.get(f"/admin/accounts/apitoken/{token.pk}/change/").content.decode()
    assert token.prefix in page
    assert plain not in page
    assert token.key_hash not in page


def test_admin_action_revokes_the_selected_tokens(staff_client, alice_play_token):
    token, _ = alice_play_token
    response = staff_client.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke_tokens", "_selected_action": [token.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


def test_player_admin_lists_players(staff_client, alice):
    assert "Alice" in staff_client.get("/admin/accounts/player/").content.decode()
