"""Issue 28, point 7: the property of tests/e2e/shape_property.py over a handful of drawn server
shapes (tests/e2e/shape.py), with the real `showdesk` commands. A failing seed prints its shape;
`SHOWDESK_SHAPE_SEED=1234` replays it (and only it). The reliability suite runs hundreds
(tests/reliability/test_shape_space.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.shape import Shape, seeds
from tests.e2e.shape_property import run_shape

SEEDS = seeds(8)
LATENCY_MS = 3  # small here: `make test` runs these on two shared cores


@pytest.mark.parametrize("seed", SEEDS)
def test_the_exit_code_tells_the_truth_whatever_the_shape(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    shape = Shape.draw(seed, latency_ms=LATENCY_MS)
    verdict = run_shape(shape, tmp_path, capsys, monkeypatch)
    assert not verdict.problems, verdict.report


def test_a_shape_is_drawn_again_from_its_seed_and_says_how_to_replay_it() -> None:
    assert Shape.draw(41) == Shape.draw(41) != Shape.draw(42)
    assert "SHOWDESK_SHAPE_SEED=41" in Shape.draw(41).describe()
    assert Shape().describe() == "Shape(plain)"
