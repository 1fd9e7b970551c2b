"""The simulator's named shapes (`app/sim/presets.py`) and `showdesk sim --preset`."""

from __future__ import annotations

import pytest

from app.sim.cli import build_parser, config_with_presets, main
from app.sim.presets import (
    PRESETS,
    Preset,
    UnknownPreset,
    config_for,
    missing_switches,
    preset_settings,
)

# The switch names agreed for issue 12 (shared brief): a preset may name one that another branch
# adds to SimConfig, never anything else (a typo would only show at run time).

ISSUE_SHAPES = {
    "strict", "friendly", "basic-auth", "no-expiry", "integer-ids", "offset-dates",
    "data-envelope", "offset-paging", "skip-take", "renamed-paths", "missing-resources",
    "deny-writes", "errors-message", "errors-field", "errors-list", "errors-text", "retry-after",
    "shared-window",
}  # fmt: skip


def test_every_shape_of_the_issue_has_a_preset_naming_only_agreed_switches() -> None:
    assert set(PRESETS) >= ISSUE_SHAPES
    for name, preset in PRESETS.items():
        assert preset.description and "\n" not in preset.description, name
        assert missing_switches(preset.settings) == [], name  # every switch exists
    assert dict(PRESETS["strict"].settings) == {}  # the default simulator is the strict one


def test_later_presets_win_and_explicit_switches_win_over_presets() -> None:
    combined = preset_settings(["data-envelope", "offset-paging"])
    assert combined["page_params"] == ("offset", "limit")
    assert combined["shape"] == "envelope" and combined["page_size"] == 50
    assert config_for(["strict"], rate_limit=7).rate_limit == 7


def test_unknown_names_and_switches_are_clear_errors() -> None:
    with pytest.raises(UnknownPreset, match="no preset named 'nope'"):
        config_for(["nope"])
    with pytest.raises(UnknownPreset, match="no_such_switch"):
        config_for(["strict"], no_such_switch=True)


def test_sim_flags_given_win_over_the_preset_which_wins_over_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shape = Preset("a test shape", {"page_size": 50, "rate_limit": 100, "shape": "envelope"})
    monkeypatch.setitem(PRESETS, "test-shape", shape)
    args = build_parser().parse_args(["--preset", "test-shape", "--rate", "20/60"])
    config = config_with_presets(args)
    assert (config.page_size, config.rate_limit, config.shape) == (50, 20, "envelope")


def test_preset_list_and_help_name_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--preset", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in PRESETS)
    with pytest.raises(SystemExit):
        main(["--help"])
    helped = capsys.readouterr().out
    assert all(f"  {name} " in helped for name in PRESETS)


def test_an_unknown_preset_exits_2_with_the_known_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--preset", "nope", "--port", "0"]) == 2
    assert "no preset named 'nope'" in capsys.readouterr().err
