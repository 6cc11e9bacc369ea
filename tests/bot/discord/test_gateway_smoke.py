"""The client started for real against a fake Discord REST API and gateway on 127.0.0.1: it
logs in, publishes its slash commands, identifies, becomes ready and closes cleanly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord
import pytest
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route
from support.fake_discord import APPLICATION_ID, GUILD_ID, FakeDiscordServer

from bot.discord.client import build_client
from config import Settings

TOKEN = "fake-token"


@pytest.fixture
async def discord_server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscordServer]:
    server = FakeDiscordServer()
    await server.start()
    monkeypatch.setattr(Route, "BASE", server.api_base)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(server.gateway_url))
    yield server
    await server.close()


async def test_the_client_starts_syncs_to_the_dev_server_and_closes(
    discord_server: FakeDiscordServer, bot, settings: Settings
) -> None:
    dev = settings.model_copy(update={"discord_dev_guild": GUILD_ID})
    client = build_client(bot, dev)
    running = asyncio.create_task(client.start(TOKEN))
    await asyncio.wait_for(client.wait_until_ready(), 20)

    [identify] = discord_server.identifies
    assert identify["token"] == TOKEN
    assert identify["intents"] == discord.Intents.default().value
    assert "shard" not in identify
    [commands] = discord_server.requests_to(
        "PUT", f"/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"
    )
    assert {c["name"] for c in commands} >= {"ask", "practice", "ingest", "bind", "mistakes"}
    assert discord_server.requests_to("PUT", f"/applications/{APPLICATION_ID}/commands") == []
    assert client.user is not None and client.user.id == APPLICATION_ID

    await client.close()
    await asyncio.wait_for(running, 10)
    assert client.is_closed()


async def test_a_replica_identifies_only_its_shards(
    discord_server: FakeDiscordServer, bot, settings: Settings
) -> None:
    client = build_client(bot, settings, shard_count=4, shard_ids=[2])
    running = asyncio.create_task(client.start(TOKEN))
    await asyncio.wait_for(discord_server.identified.wait(), 20)

    [identify] = discord_server.identifies
    assert identify["shard"] == [2, 4]
    # Shard 0 runs elsewhere: that replica publishes the commands.
    assert not any(path.endswith("/commands") for _, path, _ in discord_server.requests)

    await client.close()
    await asyncio.wait_for(running, 10)
