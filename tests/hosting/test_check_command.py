"""``/dicebot check``: what the bot lacks where it was asked, named as Discord names it,
with the fix (the role, the channel, or an invite link asking for exactly the right
permissions); in a thread it is Send Messages in Threads that counts."""

from __future__ import annotations

import discord
from fakediscord import FakeDiscord, FakeGuild, Player

from bot.app import DiceBot
from bot.ui.permissions import invite_permissions
from cogs.admin_render import permission_check_line

EVERYTHING = invite_permissions()


def test_the_invite_asks_for_what_tournaments_play_in_threads_with() -> None:
    assert EVERYTHING.create_public_threads and EVERYTHING.send_messages_in_threads
    # Asked for, but never named missing: without it the matches are played in the channel.
    assert EVERYTHING.value == 309237763072


async def test_check_names_what_is_missing_in_a_channel_and_how_to_fix_it(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    channel = await guild.add_channel(
        "no-uploads", bot_deny=discord.Permissions(attach_files=True, read_message_history=True)
    )
    answer = await alice.slash("dicebot check", channel=channel)
    text = (await answer.final_message()).text()
    first_line, threads_line, dm_line = text.split("\n")
    assert first_line.startswith(
        "❌ In this channel I'm missing: **Attach Files**, **Read Message History**. A server "
        "admin can grant them to my role (Server Settings → Roles) or in the channel's "
        "permissions, or invite me again with this link, which asks for exactly what I need: "
        f"<https://discord.com/oauth2/authorize?client_id={fake_discord.application_id}"
        f"&scope=bot+applications.commands&permissions={EVERYTHING.value}>"
    )
    assert first_line.endswith("Until then, play in another channel.")
    # The bot's role may not open threads here: tournaments play in the channel.
    assert threads_line.startswith("ℹ️ Tournaments opened here play their matches in this channel")
    assert dm_line == "✅ I can DM you, so secret moves will reach you privately."


async def test_check_in_a_channel_where_all_is_granted(running_bot: DiceBot, alice: Player) -> None:
    answer = await alice.slash("dicebot check")
    text = (await answer.final_message()).text()
    assert text.split("\n")[0] == "✅ I have every permission I need in this channel."


def test_in_a_thread_send_messages_in_threads_is_what_counts() -> None:
    no_thread_posts = discord.Permissions(EVERYTHING.value)
    no_thread_posts.send_messages_in_threads = False
    line = permission_check_line(no_thread_posts, in_thread=True, application_id=None)
    assert line == (
        "❌ In this thread I'm missing: **Send Messages in Threads**. A server admin can grant "
        "them to my role (Server Settings → Roles) or in the channel's permissions. Until "
        "then, play in another channel."
    )
    # In a plain channel the thread permission is not needed...
    assert permission_check_line(no_thread_posts, in_thread=False, application_id=None) == (
        "✅ I have every permission I need in this channel."
    )
    # ...and in a thread Send Messages alone is not.
    no_channel_posts = discord.Permissions(EVERYTHING.value)
    no_channel_posts.send_messages = False
    assert permission_check_line(no_channel_posts, in_thread=True, application_id=None) == (
        "✅ I have every permission I need in this thread."
    )
