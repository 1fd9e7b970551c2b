"""The table `make reliability` prints, from the counts the suite wrote."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.report import main, table
from tests.reliability.tally import METRICS, Tally


def test_counts_are_merged_across_sessions_and_printed_per_part(tmp_path: Path) -> None:
    first, second = Tally(), Tally()
    first.add("faults", faults_injected=150, edits_pushed=1000, lost=0, duplicated=0)
    second.add("faults", faults_injected=10)
    second.add("crash", kills_survived=60)
    path = tmp_path / "counts.json"
    first.save(path)
    second.save(path)
    text = table({"faults": {"faults injected": 160}, "crash": {"kills survived": 60}})
    lines = text.splitlines()
    assert lines[0].split() == ["faults", "crash", "total"]
    totals = ["160", "—", "—", "—", "60", "—", "—", "—", "—", "—"]
    assert [line.split()[-1] for line in lines[2:]] == totals
    assert len(lines) == 2 + len(METRICS)
    assert main([str(path)]) == 0


def test_an_unknown_metric_is_refused() -> None:
    try:
        Tally().add("faults", eaten_by_a_grue=1)
    except KeyError as error:
        assert "eaten by a grue" in str(error)
    else:
        raise AssertionError("an unknown metric was counted")
