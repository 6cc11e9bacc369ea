"""The shell every long-running command runs in (telegram, discord, watch, worker): signals,
a bounded drain, and the HTTP endpoints an orchestrator asks.

- SIGINT or SIGTERM asks the command to stop: it stops taking work, finishes or hands back
  what it holds, and the core closes (the mistake outbox flushed, the index closed). A
  watchdog ends the process if that has not happened within `GRACE_S` (Compose and
  Kubernetes kill at 10 s), and a second signal ends it at once.
- `/healthz` answers while the event loop runs; `/readyz` asks Redis, the database and the
  index (503 with the one that failed, or while stopping); `/metrics` is the process's
  Prometheus figures, behind `COURSEBOT_METRICS_TOKEN` as a bearer token when set.
- Every log line of the process carries its command (`process`); a request's lines also
  carry its id, platform and course (bound by the core)."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from config import Settings
from core.metrics import Metrics

if TYPE_CHECKING:
    from bot.composition import Assembly

log = structlog.get_logger(__name__)

# Within Compose's and Kubernetes' 10 s between SIGTERM and SIGKILL, with room to exit.
GRACE_S = 9.0
# The commands that run in the shell until they are stopped.
SHELL_COMMANDS = frozenset({"telegram", "discord", "watch", "worker"})
PROBE_TIMEOUT_S = 2.0

Probe = Callable[[], Awaitable[bool]]


@dataclass(slots=True)
class Shell:
    """What a command sees of its shell: `stopping` is set by SIGINT/SIGTERM (or `stop`)."""

    name: str
    metrics: Metrics
    probes: dict[str, Probe] = field(default_factory=dict)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    port: int | None = None

    def stop(self) -> None:
        self.stopping.set()

    async def wait(self) -> None:
        """Until the process is asked to stop."""
        await self.stopping.wait()

    async def readiness(self) -> dict[str, str]:
        """Each probe's verdict, "ok" or why not; "stopping" once a stop was asked."""
        names = list(self.probes)
        outcomes = await asyncio.gather(
            *(_bounded(self.probes[name]) for name in names), return_exceptions=True
        )
        verdicts = {name: _verdict(outcome) for name, outcome in zip(names, outcomes, strict=True)}
        if self.stopping.is_set():
            verdicts["process"] = "stopping"
        return verdicts


def exit_now(code: int) -> NoReturn:
    """End the process with `code` once a shell command has closed everything (the outbox
    flushed, the index closed), skipping the interpreter's teardown: collecting a loaded
    core's objects took seconds on a busy machine, and while it runs no watchdog thread
    can end the process either. Logs and output are flushed first."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    os._exit(code)


async def _bounded(probe: Probe) -> bool:
    async with asyncio.timeout(PROBE_TIMEOUT_S):
        return await probe()


def _verdict(outcome: bool | BaseException) -> str:
    if isinstance(outcome, TimeoutError):
        return f"no answer within {PROBE_TIMEOUT_S:g} s"
    if isinstance(outcome, BaseException):
        return type(outcome).__name__
    return "ok" if outcome else "not ready"


def probes_of(settings: Settings, assembly: Assembly) -> dict[str, Probe]:
    """Readiness of what the core stands on: the index, the database and, when configured,
    Redis."""
    from sqlalchemy import text

    async def database() -> bool:
        async with assembly.database.connect() as connection:
            await connection.execute(text("SELECT 1"))
        return True

    probes: dict[str, Probe] = {"index": assembly.index.reachable, "database": database}
    if settings.redis_url is not None:
        probes["redis"] = redis_probe(str(settings.redis_url))
    return probes


def redis_probe(url: str) -> Probe:
    async def redis() -> bool:
        from redis.asyncio import Redis

        client = Redis.from_url(url, socket_connect_timeout=PROBE_TIMEOUT_S, retry=None)
        try:
            return bool(await client.ping())
        finally:
            await client.aclose()

    return redis


@asynccontextmanager
async def run_shell(
    name: str, settings: Settings, metrics: Metrics, probes: dict[str, Probe] | None = None
) -> AsyncIterator[Shell]:
    """The shell for command `name`: signal handlers and, with COURSEBOT_HTTP_PORT, the
    endpoints, for the duration of the block."""
    shell = Shell(name, metrics, dict(probes or {}))
    structlog.contextvars.bind_contextvars(process=name)
    loop = asyncio.get_running_loop()
    installed = _install_signals(loop, shell)
    runner = await _serve(shell, settings) if settings.http_port is not None else None
    try:
        yield shell
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
        if runner is not None:
            await runner.cleanup()


def _install_signals(loop: asyncio.AbstractEventLoop, shell: Shell) -> list[int]:
    def asked(signum: int) -> None:
        if shell.stopping.is_set():
            log.warning("second stop signal: exiting now", signal=signal.Signals(signum).name)
            os._exit(128 + signum)
        log.info("stopping", signal=signal.Signals(signum).name, grace_s=GRACE_S)
        shell.stop()
        _watchdog(GRACE_S, 128 + signum)

    installed: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, asked, signum)
        except (NotImplementedError, RuntimeError):
            continue  # not on this platform: Ctrl-C raises KeyboardInterrupt instead
        installed.append(signum)
    return installed


def _watchdog(after_s: float, code: int) -> None:
    """End the process after `after_s` if the drain has not: a thread, so a blocked event
    loop cannot hold it up; a daemon, so a clean exit does not wait for it."""

    def expire() -> None:
        log.error("did not stop within the grace period: exiting", grace_s=after_s)
        os._exit(code)

    timer = threading.Timer(after_s, expire)
    timer.daemon = True
    timer.start()


async def _serve(shell: Shell, settings: Settings) -> web.AppRunner:
    token = settings.metrics_token.get_secret_value() if settings.metrics_token else None
    app = web.Application()
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz(shell))
    app.router.add_get("/metrics", _metrics(shell, token))
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.http_host, settings.http_port)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    shell.port = settings.http_port
    log.info("endpoints listening", host=settings.http_host, port=settings.http_port)
    return runner


async def _healthz(_request: web.Request) -> web.Response:
    return web.json_response({"status": "alive"})


def _readyz(shell: Shell) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def readyz(_request: web.Request) -> web.Response:
        verdicts = await shell.readiness()
        ready = all(verdict == "ok" for verdict in verdicts.values())
        body = {"status": "ready" if ready else "not ready", "checks": verdicts}
        return web.Response(
            status=200 if ready else 503, text=json.dumps(body), content_type="application/json"
        )

    return readyz


def _metrics(shell: Shell, token: str | None) -> Callable[[web.Request], Awaitable[web.Response]]:
    expected = f"Bearer {token}".encode() if token else None

    async def metrics(request: web.Request) -> web.Response:
        if expected is not None:
            given = request.headers.get("Authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return web.Response(
                    status=401, text="bearer token required\n",
                    headers={"WWW-Authenticate": "Bearer"},
                )  # fmt: skip
        body = await shell.metrics.exposition()
        response = web.Response(body=body)
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    return metrics


@asynccontextmanager
async def running_core(name: str, settings: Settings) -> AsyncIterator[tuple[Assembly, Shell]]:
    """The checked core of command `name` inside its shell: on the way out the shell stops
    first (no new work, endpoints closed), then the core closes (outbox flushed, index
    closed)."""
    from bot.startup import open_checked_assembly

    metrics = Metrics(name)
    async with (
        open_checked_assembly(settings, metrics) as assembly,
        run_shell(name, settings, metrics, probes_of(settings, assembly)) as shell,
    ):
        if not assembly.sessions.durable:
            # Only a process that outlives its requests loses sessions on a restart, or
            # splits them between replicas; a one-shot command has no session to lose.
            log.warning(
                "sessions are kept in this process only and won't survive a restart "
                "or be shared by replicas; set COURSEBOT_REDIS_URL to keep them"
            )
        yield assembly, shell


async def until_stopped(shell: Shell, work: Coroutine[object, object, object]) -> None:
    """Run `work` until it ends (its error raised) or the shell is asked to stop (then it
    is cancelled)."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(shell.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await stop_task(stop)
        if not task.done():
            await stop_task(task)
    if not task.cancelled() and task.exception() is not None:
        raise task.exception()  # type: ignore[misc]


async def stop_task(task: asyncio.Future[Any]) -> None:
    """Cancel `task` and wait for it to end."""
    task.cancel()
    with suppress(asyncio.CancelledError):
        await task
