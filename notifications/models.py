# Models arrive with the notification work (the outbox, reminders).
