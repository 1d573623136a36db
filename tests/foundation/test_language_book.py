"""Each player's language, remembered for the DMs a timer or another player's move sends
them: stored when it changes, read back after a restart or by another process."""

from __future__ import annotations

from bot.model.clock import ManualClock
from bot.storage import Database
from bot.ui.languages import LanguageBook

ANA, BEN, CARL = 11, 22, 33


async def stored(db: Database) -> dict[int, str]:
    rows = await db.fetch_all("SELECT user_id, language FROM user_languages")
    return {int(row["user_id"]): row["language"] for row in rows}


async def test_a_language_other_than_english_is_stored_and_read_back(
    db: Database, open_another
) -> None:
    book = LanguageBook(db, ManualClock())
    book.saw(ANA, "es")
    book.saw(BEN, "en")  # the default: nothing to store
    book.saw(ANA, "es")  # unchanged: no second write
    await book.close()
    assert await stored(db) == {ANA: "es"}

    # Another process (or the bot after a restart) knows it before Ana interacts again.
    other = LanguageBook(await open_another(), ManualClock())
    assert other.of(ANA) == "en"  # not loaded yet
    await other.load([ANA, BEN, CARL])
    assert (other.of(ANA), other.of(BEN), other.of(CARL)) == ("es", "en", "en")


async def test_switching_back_to_english_replaces_the_stored_language(db: Database) -> None:
    first = LanguageBook(db, ManualClock())
    first.saw(ANA, "fr")
    await first.close()
    # After a restart Ana's client is English again: the stored French must not linger.
    second = LanguageBook(db, ManualClock())
    second.saw(ANA, "en")
    await second.close()
    assert await stored(db) == {ANA: "en"}
    assert second.of(ANA) == "en"
