"""Plain building blocks the apps share (domain errors); imports no app and no HTTP."""
