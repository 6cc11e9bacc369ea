"""The figures a running process exposes at /metrics (Prometheus' text format): requests by
command and platform, time per stage, model time, outages, throttled requests, jobs and
schedule runs. One `Metrics` per process, built by the composition root and passed to what
records into it; its registry is its own (prometheus-client's default one is a global)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

# Chat latencies: a cached answer takes milliseconds, a lesson or an ingestion minutes.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800)

QueueDepth = Callable[[], Awaitable[int]]


class Metrics:
    def __init__(self, process: str = "coursebot") -> None:
        self.process = process
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "coursebot_requests",
            "Requests handled, by command (question, answer, files or a command's name), "
            "platform and outcome (ok, refused, error, unavailable, throttled, replayed).",
            ["command", "platform", "outcome"],
            registry=r,
        )
        self.stage_seconds = Histogram(
            "coursebot_stage_seconds",
            "Time spent per stage of a request or job (request, retrieve, answer, ingest, job).",
            ["stage"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.model_seconds = Histogram(
            "coursebot_model_seconds",
            "Time spent waiting on a language model, by role.",
            ["role"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.outages = Counter(
            "coursebot_outages",
            "Outages of a service (Redis, the database) as they began.",
            ["service"],
            registry=r,
        )
        self.throttled = Counter(
            "coursebot_throttled_requests",
            "Requests refused by the rate limits, by platform.",
            ["platform"],
            registry=r,
        )
        self.jobs = Counter(
            "coursebot_jobs",
            "Background jobs finished, by kind and outcome (done, failed, retried).",
            ["kind", "outcome"],
            registry=r,
        )
        self.job_queue_depth = Gauge(
            "coursebot_job_queue_depth",
            "Jobs waiting in the queue (read when /metrics is fetched).",
            registry=r,
        )
        self.schedule_runs = Counter(
            "coursebot_schedule_runs",
            "Scheduled runs (a watched folder's ingestion, …), by kind and outcome.",
            ["kind", "outcome"],
            registry=r,
        )
        self._depth: QueueDepth | None = None

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as stage `name` (failures included: a slow failure is slow too)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.stage_seconds.labels(name).observe(time.perf_counter() - started)

    def count_request(self, command: str, platform: str, outcome: str) -> None:
        self.requests.labels(command, platform, outcome).inc()

    def watch_queue(self, depth: QueueDepth) -> None:
        """Read the queue's depth with `depth` whenever the figures are exposed."""
        self._depth = depth

    async def exposition(self) -> bytes:
        """The figures in Prometheus' text format, the queue depth read now."""
        if self._depth is not None:
            # Redis down: the last depth stands; /readyz says why.
            with suppress(Exception):
                self.job_queue_depth.set(await self._depth())
        return generate_latest(self.registry)
