"""Platform adapters (console, Telegram, Discord) and the `coursebot` command line."""
