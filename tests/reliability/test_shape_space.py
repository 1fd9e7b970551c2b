"""The server-shape space (issue 28, point 7), hundreds of shapes at a time: the property of
tests/e2e/shape_property.py against `level().shapes` shapes drawn from seeds 1001, 1002…
(tests/e2e/test_shape_space.py runs a handful in `make test`). The `shapes` part of the report
counts the shapes drawn, the commands judged and the silent failures (a command whose exit code
said success while the cache or the show disagreed): 0, or this test fails printing each failing
shape with its seed (`SHOWDESK_SHAPE_SEED=1234` replays one)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.e2e.shape import Shape, seeds
from tests.e2e.shape_property import Verdict, run_shape
from tests.reliability.levels import Level
from tests.reliability.tally import Tally

FIRST_SEED = 1001
SHOWN = 3  # failing shapes printed in full


@pytest.mark.timeout(3600)  # full settings: 200 shapes, a few seconds each
def test_no_shape_makes_a_command_say_done_when_it_is_not(
    strength: Level, tally: Tally, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    verdicts: list[Verdict] = []
    for seed in seeds(strength.shapes, FIRST_SEED):
        folder = tmp_path / f"seed-{seed}"
        folder.mkdir()
        shape = Shape.draw(seed, latency_ms=strength.shape_latency_ms)
        verdicts.append(run_shape(shape, folder, capsys, monkeypatch))
    drawn = len({replace(v.shape, seed=None) for v in verdicts})
    runs, silent = sum(v.runs for v in verdicts), sum(v.silent for v in verdicts)
    tally.add("shapes", shapes_drawn=drawn, runs=runs, silent_failures=silent)
    failing = [v for v in verdicts if v.problems]
    summary = (f"{drawn} shapes drawn, {runs} runs, {silent} silent failures, "
               f"{len(failing)} shapes breaking the property")  # fmt: skip
    with capsys.disabled():
        print(f"\nserver shapes: {summary}")
        for verdict in failing:
            print(f"  {verdict.shape.describe()}: {verdict.problems[0]}")
    assert not failing, "\n\n".join([summary, *(v.report for v in failing[:SHOWN])])
