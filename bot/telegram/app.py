"""The python-telegram-bot `Application` for coursebot: the token, Telegram's rate limits,
concurrency ordered per sender in each chat and the handlers, with the core passed in."""

from __future__ import annotations

from typing import Any

from telegram.ext import AIORateLimiter, Application

from bot.telegram.handlers import TelegramHandlers
from bot.telegram.updates import ChatOrderedUpdates
from config import Settings
from core.course_bot import CourseBot
from core.requests import Request, Response
from core.schedules import Schedule
from ingestion.schedule import Post

TelegramApplication = Application[Any, Any, Any, Any, Any, Any]

# A flood-wait from Telegram is retried this many times before the send fails.
RATE_LIMIT_RETRIES = 3


def build_application(
    settings: Settings,
    core: CourseBot,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
) -> TelegramApplication:
    """`base_url`/`base_file_url` point the bot at another Bot API server (a local one, or a
    test's fake); unset, python-telegram-bot talks to api.telegram.org."""
    if settings.telegram_token is None:
        raise ValueError("COURSEBOT_TELEGRAM_TOKEN is not set")
    builder = (
        Application.builder()
        .token(settings.telegram_token.get_secret_value())
        .rate_limiter(
            AIORateLimiter(
                overall_max_rate=settings.telegram_messages_per_s,
                overall_time_period=1,
                max_retries=RATE_LIMIT_RETRIES,
            )
        )
        .concurrent_updates(ChatOrderedUpdates())
    )
    if base_url is not None:
        builder = builder.base_url(base_url)
    if base_file_url is not None:
        builder = builder.base_file_url(base_file_url)
    application: TelegramApplication = builder.build()
    handlers = TelegramHandlers(core)
    handlers.register(application)
    return application


def scheduled_poster(application: TelegramApplication, core: CourseBot) -> Post:
    """How this bot posts a scheduled run's response (a quiz, reminders) in its chat."""
    handlers = TelegramHandlers(core)

    async def post(schedule: Schedule, request: Request, response: Response) -> None:
        await handlers.post_scheduled(application.bot, schedule, request, response)

    return post
