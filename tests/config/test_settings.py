from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from config import ModelRole, SettingsError, load_settings, mask_url


def test_defaults_are_the_embedded_engines() -> None:
    settings = load_settings(env_file=None)
    assert settings.qdrant_url is None
    assert settings.redis_url is None
    assert settings.database_url is None
    assert settings.ollama_host is None
    assert settings.max_upload_bytes == 50 * 1024 * 1024


def test_abuse_limits_have_defaults_and_read_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    defaults = load_settings(env_file=None)
    assert defaults.rate_limit == "5 per 10 seconds"
    assert defaults.place_rate_limit == "40 per minute"
    assert defaults.max_question_chars == 2000
    assert defaults.course_creation == "chat_admins"
    monkeypatch.setenv("COURSEBOT_RATE_LIMIT", "20/minute")
    monkeypatch.setenv("COURSEBOT_PLACE_RATE_LIMIT", "100/minute")
    monkeypatch.setenv("COURSEBOT_MAX_QUESTION_CHARS", "4000")
    monkeypatch.setenv("COURSEBOT_COURSE_CREATION", "site_staff")
    settings = load_settings(env_file=None)
    assert settings.rate_limit == "20/minute"
    assert settings.place_rate_limit == "100/minute"
    assert settings.max_question_chars == 4000
    assert settings.course_creation == "site_staff"


def test_reads_prefixed_environment_and_short_model_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_REDIS_URL", "redis://127.0.0.1:6379/3")
    monkeypatch.setenv("COURSEBOT_OLLAMA_HOST", "http://127.0.0.1:11434")
    monkeypatch.setenv("COURSEBOT_OLLAMA_MODELS", "answer=llama3.1:8b, grade=qwen2.5:7b")
    settings = load_settings(env_file=None)
    assert str(settings.redis_url) == "redis://127.0.0.1:6379/3"
    assert settings.ollama_models == {
        ModelRole.ANSWER: "llama3.1:8b",
        ModelRole.GRADE: "qwen2.5:7b",
    }


def test_model_list_accepts_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_OLLAMA_HOST", "http://127.0.0.1:11434")
    monkeypatch.setenv("COURSEBOT_OLLAMA_MODELS", '{"vision": "llava"}')
    assert load_settings(env_file=None).ollama_models == {ModelRole.VISION: "llava"}


def test_reads_dot_env_file(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("COURSEBOT_QDRANT_URL=http://qdrant.internal:6333\nCOURSEBOT_LOG_LEVEL=debug\n")
    settings = load_settings(env_file=env)
    assert str(settings.qdrant_url) == "http://qdrant.internal:6333/"
    assert settings.log_level == "DEBUG"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("COURSEBOT_REDIS_URL", "not a url", "bad setting COURSEBOT_REDIS_URL"),
        ("COURSEBOT_DATABASE_URL", "mysql://db/x", "bad setting COURSEBOT_DATABASE_URL"),
        ("COURSEBOT_OLLAMA_MODELS", "answer=a,summarise=b", "unknown model role 'summarise'"),
        ("COURSEBOT_MAX_UPLOAD_MB", "-1", "bad setting COURSEBOT_MAX_UPLOAD_MB"),
        ("COURSEBOT_REDIS_URI", "redis://x", "unknown setting COURSEBOT_REDIS_URI"),
        ("COURSEBOT_RATE_LIMIT", "plenty", "bad setting COURSEBOT_RATE_LIMIT: expected a rate"),
        ("COURSEBOT_RATE_LIMIT", "1/second;5/minute", "expected one rate"),
        ("COURSEBOT_PLACE_RATE_LIMIT", "lots", "bad setting COURSEBOT_PLACE_RATE_LIMIT: expected"),
        ("COURSEBOT_MAX_QUESTION_CHARS", "0", "bad setting COURSEBOT_MAX_QUESTION_CHARS"),
        ("COURSEBOT_COURSE_CREATION", "anyone", "bad setting COURSEBOT_COURSE_CREATION"),
    ],
)
def test_bad_setting_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    monkeypatch.setenv("COURSEBOT_OLLAMA_HOST", "http://127.0.0.1:11434")
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=None)
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message


def test_models_without_ollama_host_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_OLLAMA_MODELS", "answer=llama3.1")
    with pytest.raises(SettingsError, match="COURSEBOT_OLLAMA_HOST is not"):
        load_settings(env_file=None)


def test_bad_setting_error_never_echoes_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_DATABASE_URL", "mysql://admin:hunter2@db/x")
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=None)
    assert "hunter2" not in str(caught.value)


def test_masked_view_hides_tokens_and_url_credentials() -> None:
    settings = load_settings(
        env_file=None,
        redis_url="redis://bot:s3cret-pass@cache:6379/0",
        database_url="postgresql+asyncpg://coursebot:pg-pass@db:5432/coursebot",
        qdrant_url="https://qdrant.example:6333",
        qdrant_api_key="qdrant-key-123",
        telegram_token="123456:telegram-secret",
        discord_token="discord-secret-token",
    )
    view = settings.masked()
    shown = "\n".join(view.values())
    for secret in ("s3cret-pass", "pg-pass", "qdrant-key-123", "telegram-secret", "discord-secret"):
        assert secret not in shown
    assert view["COURSEBOT_REDIS_URL"] == "redis://***@cache:6379/0"
    assert view["COURSEBOT_TELEGRAM_TOKEN"] == "***"
    assert view["COURSEBOT_DISCORD_TOKEN"] == "***"
    assert view["COURSEBOT_QDRANT_URL"] == "https://qdrant.example:6333/"


def test_mask_url_masks_secret_query_parameters() -> None:
    assert mask_url("http://h/x?api_key=abc&x=1") == "http://h/x?api_key=***&x=1"


def _coursebot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _base_env(tmp_path: Path) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEBOT_")}
    env["COURSEBOT_DATA_DIR"] = str(tmp_path / "data")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def test_cli_bad_setting_fails_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    env = _base_env(tmp_path) | {"COURSEBOT_REDIS_URL": "::not-a-url::"}
    result = _coursebot("config", env=env)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "coursebot: bad setting COURSEBOT_REDIS_URL: "
        "Input should be a valid URL, relative URL without a base"
    ]
    assert "Traceback" not in result.stderr


def test_cli_config_prints_masked_settings(tmp_path: Path) -> None:
    env = _base_env(tmp_path) | {
        "COURSEBOT_TELEGRAM_TOKEN": "999:very-secret",
        "COURSEBOT_REDIS_URL": "redis://user:pw-123@127.0.0.1:6379/0",
    }
    result = _coursebot("config", env=env)
    assert result.returncode == 0, result.stderr
    assert "very-secret" not in result.stdout
    assert "pw-123" not in result.stdout
    assert "COURSEBOT_REDIS_URL" in result.stdout
    assert "redis://***@127.0.0.1:6379/0" in result.stdout


def test_the_test_suite_overrides_are_not_product_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The suite reads CBTEST_*: a prefix the settings never look at, so they do not refuse it.
    monkeypatch.setenv("CBTEST_REDIS_URL", "redis://127.0.0.1:6379/3")
    monkeypatch.setenv("CBTEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1/postgres")
    assert load_settings(env_file=None).redis_url is None
