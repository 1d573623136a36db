"""The pseudo-localized run's own checks: pseudo text, its plain form, English left."""

from __future__ import annotations

from fakediscord.pseudo import plain, plain_value
from pseudo_locale import english_left, names_pattern, shown_texts

from bot import i18n


def test_pseudo_text_wraps_each_run_keeps_placeholders_and_is_40_percent_longer() -> None:
    template = "Column {column} is full.\nPick another one."
    text = i18n.pseudo(template)
    assert "{column}" in text
    assert text.count(i18n.PSEUDO_OPEN) == 3
    assert len(text) >= len(template) * 1.4
    assert plain(text.format(column=2)) == "Column 2 is full.\nPick another one."


def test_english_outside_the_brackets_is_found_and_names_are_not() -> None:
    names = names_pattern(["José Ñandú", "bob"])
    sent = i18n.pseudo("{player} beat {other}").format(player="José Ñandú", other="<@42>")
    assert english_left(sent, names) == []
    assert english_left("bob " + i18n.pseudo("wins") + " by 3 points", names) == ["by", "points"]
    # A name inside a word is not a name: "game" keeps its "me".
    assert english_left("the game", names_pattern(["me"])) == ["the", "game"]
    assert english_left("⚀ 12 · <t:17000:R> https://discord.com/x", None) == []


def test_every_shown_text_of_a_body_is_read() -> None:
    body = {
        "type": 4,
        "data": {
            "content": "a",
            "embeds": [{"title": "b", "fields": [{"name": "c", "value": "d"}]}],
            "components": [
                {"type": 1, "components": [{"type": 2, "label": "e"}]},
                {"type": 1, "components": [{"type": 3, "options": [{"label": "f"}]}]},
            ],
            "attachments": [{"id": 0, "description": "g"}],
        },
    }
    assert sorted(text for _, text in shown_texts(body)) == list("abcdefg")
    assert plain_value({"x": [i18n.pseudo("Hello")]}) == {"x": ["Hello"]}
