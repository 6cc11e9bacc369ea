"""`coursebot discord`: its options, its help and how it refuses to start."""

from __future__ import annotations

import argparse

import discord
import pytest
from pydantic import SecretStr

from bot.cli import build_parser
from bot.discord.cli import run_discord
from bot.discord.client import CourseClient, ShardedCourseClient, build_client


def parser() -> argparse.ArgumentParser:
    return build_parser(["discord"])


def test_shard_options_are_parsed() -> None:
    args = parser().parse_args(["discord", "--shards", "4", "--shard-ids", "3,1"])
    assert (args.shards, args.shard_ids, args.run) == (4, [1, 3], run_discord)
    plain = parser().parse_args(["discord"])
    assert (plain.shards, plain.shard_ids) == (None, None)


@pytest.mark.parametrize(
    "option", [["--shards", "0"], ["--shard-ids", "one"], ["--shard-ids", "-1"]]
)
def test_malformed_shard_options_are_refused(option, capsys) -> None:
    with pytest.raises(SystemExit) as exit:
        parser().parse_args(["discord", *option])
    assert exit.value.code == 2
    assert "coursebot discord: error:" in capsys.readouterr().err


def test_help_explains_the_settings(capsys) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["discord", "--help"])
    text = capsys.readouterr().out
    for needed in (
        "COURSEBOT_DISCORD_TOKEN",
        "COURSEBOT_DISCORD_DEV_GUILD",
        "COURSEBOT_COURSE_ROLES",
        '"instructor": ["discord:role:Teacher"]',
        "Message Content intent",
        "COURSEBOT_REDIS_URL",
        "--shard-ids",
    ):
        assert needed in text


async def test_a_missing_token_is_one_clear_line(settings, capsys) -> None:
    assert settings.discord_token is None
    args = parser().parse_args(["discord"])
    assert await run_discord(args, settings) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "COURSEBOT_DISCORD_TOKEN" in err


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (["--shard-ids", "0"], "--shard-ids needs --shards N"),
        (["--shards", "2", "--shard-ids", "1,2"], "shard id 2 is out of range for --shards 2"),
    ],
)
async def test_inconsistent_shards_are_refused(settings, capsys, options, problem) -> None:
    args = parser().parse_args(["discord", *options])
    assert await run_discord(args, settings) == 2
    assert problem in capsys.readouterr().err


async def test_one_client_or_a_subset_of_shards_share_the_same_commands(bot, settings) -> None:
    single = build_client(bot, settings)
    replica = build_client(bot, settings, shard_count=4, shard_ids=[2, 3])
    first = build_client(bot, settings, shard_count=4, shard_ids=[0, 1])
    assert isinstance(single, CourseClient)
    assert not isinstance(single, discord.AutoShardedClient)
    assert isinstance(replica, ShardedCourseClient)
    assert isinstance(replica, discord.AutoShardedClient)
    assert (replica.shard_count, replica.shard_ids) == (4, [2, 3])
    names = {c.name for c in single.tree.get_commands()}
    assert names == {c.name for c in replica.tree.get_commands()}
    # One replica publishes the commands: the one running shard 0.
    assert [c.syncs_commands for c in (single, replica, first)] == [True, False, True]
    assert not single.intents.message_content  # no privileged intent


async def test_an_unreachable_discord_is_one_clear_line(settings, capsys, monkeypatch) -> None:
    # Nothing listens on port 9 of the loopback: the first request is refused.
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:9/api/v10")
    token = settings.model_copy(update={"discord_token": SecretStr("not-a-real-token")})
    args = parser().parse_args(["discord"])
    assert await run_discord(args, token) == 1
    err = capsys.readouterr().err
    assert err.startswith("coursebot: cannot reach Discord:")
    assert "Traceback" not in err
