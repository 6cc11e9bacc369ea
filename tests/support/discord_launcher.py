"""`coursebot discord` in a process of its own, against the fake Discord of the tests.

discord.py 2.x takes its REST base from the class attribute `discord.http.Route.BASE` and
its gateway from `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY` (a client without shards
connects there before asking any endpoint); neither can be given as an argument, a setting
or an environment variable. So a process test starts this module instead of `bot.cli`: it
sets both from CBTEST_DISCORD_API and CBTEST_DISCORD_GATEWAY, then runs the real command
line, whose signals, shell and shutdown are the ones `coursebot discord` has."""

from __future__ import annotations

import os
import sys

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.cli import entry

if __name__ == "__main__":
    Route.BASE = os.environ["CBTEST_DISCORD_API"]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["CBTEST_DISCORD_GATEWAY"])
    sys.argv[1:1] = ["discord"]
    entry()
