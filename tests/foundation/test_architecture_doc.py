"""docs/architecture.md's layer diagram, cog table and module list are generated from the
code (tools/architecture.py): the page fails this test when a module moves or is added and
the page was not regenerated."""

from __future__ import annotations

from tools import architecture


def test_the_architecture_page_is_what_the_code_gives() -> None:
    assert architecture.main(["--check"]) == 0, (
        "run .venv/bin/python -m tools.architecture and commit docs/architecture.md"
    )


def test_the_diagram_draws_the_layers_of_the_contract() -> None:
    diagram = architecture.blocks()["layers"]
    for layer in architecture.layer_contract():
        for group in layer:
            if group not in architecture.FOUNDATION:
                assert f'["{group}"]' in diagram
    # The session service records results in the move's transaction: play imports ladder.
    assert "bot_play -->|" in diagram and "| bot_ladder" in diagram


def test_every_module_is_listed() -> None:
    modules = architecture.blocks()["modules"]
    assert "| `contract.py` |" in modules
    assert "**`bot/storage/`**" in modules
