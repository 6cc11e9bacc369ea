"""A group flooded by several accounts while one more member writes: how often is she served?

Drives `RequestThrottle.check` with the default limits (5 per 10 seconds a person, 40 per
minute a group) on a clock moved by hand, so two simulated minutes take milliseconds. The
flooders each write as fast as their own limit allows (one message every 2 s); the member
writes every `--every` seconds from the start. Prints, for the member and for the flooders,
messages sent and served, and the member's longest run of refusals (in messages and seconds).

Run: python bench/throttle.py [--flooders 4] [--every 3] [--seconds 120] [--redis URL]
(run it on an older checkout for the figures before a change: the API is the same)."""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from dataclasses import dataclass, field

from config import Settings
from core.throttle import RequestThrottle


@dataclass
class Sender:
    user: str
    every_s: float
    sent: int = 0
    served: int = 0
    run: int = 0
    longest_run: int = 0
    refused_times: list[float] = field(default_factory=list)

    def record(self, allowed: bool) -> None:
        self.sent += 1
        if allowed:
            self.served += 1
            self.run = 0
        else:
            self.run += 1
            self.longest_run = max(self.longest_run, self.run)


async def simulate(flooders: int, every_s: float, seconds: float, redis: str | None) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    throttle = RequestThrottle(
        settings.rate_limit,
        place_rate=settings.place_rate_limit,
        redis_url=redis,
        prefix=f"bench:{uuid.uuid4().hex[:8]}",
    )
    now = [1_000_000.0]
    real_time = time.time
    time.time = lambda: now[0]  # limits and the throttle read the wall clock
    try:
        senders = [Sender(f"telegram:{n}", 2.0) for n in range(flooders)]
        member = Sender("telegram:student", every_s)
        senders.append(member)
        events = sorted(
            (k * s.every_s + (0.001 * i), i)
            for i, s in enumerate(senders)
            for k in range(int(seconds / s.every_s))
        )
        for at, i in events:
            now[0] = 1_000_000.0 + at
            verdict = await throttle.check(senders[i].user, "telegram:-100")
            senders[i].record(verdict.allowed)
    finally:
        time.time = real_time
        await throttle.close()
    flood_sent = sum(s.sent for s in senders[:-1])
    flood_served = sum(s.served for s in senders[:-1])
    print(
        f"limits: {settings.rate_limit} a person, {settings.place_rate_limit} a group; "
        f"{flooders} flooders every 2 s, the member every {every_s:g} s, {seconds:g} s"
    )
    print(
        f"member: served {member.served}/{member.sent} "
        f"({100 * member.served / max(member.sent, 1):.0f}%), longest run of refusals "
        f"{member.longest_run} ({member.longest_run * every_s:g} s)"
    )
    print(
        f"flooders: served {flood_served}/{flood_sent}; group total served "
        f"{flood_served + member.served} in {seconds:g} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--every", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--redis", default=None)
    args = parser.parse_args()
    asyncio.run(simulate(args.flooders, args.every, args.seconds, args.redis))


if __name__ == "__main__":
    main()
