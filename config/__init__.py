"""Typed settings, logging set-up and secret masking."""

from config.logging_setup import configure_logging
from config.redaction import mask_url, redact_text
from config.settings import ModelRole, Settings, SettingsError, load_settings

__all__ = [
    "ModelRole",
    "Settings",
    "SettingsError",
    "configure_logging",
    "load_settings",
    "mask_url",
    "redact_text",
]
