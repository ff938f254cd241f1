from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"
    verbose_name = "Table talk"

    def ready(self) -> None:
        # The erasure receiver; the email renderers and the lines in game email
        # (registered with notifications); the say command; the outbox consumer's task.
        from chat import emails, inbound, receivers, tasks  # noqa: F401
        from chat.extension import ChatExtension
        from games.extensions import extensions_register

        # Table talk's part in games: its panel, export, listeners and emails.
        extensions_register(ChatExtension())
