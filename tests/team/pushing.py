"""Helpers of the team-push tests: a running `showdesk` whose stderr is read as it comes (to act
when it says a line), a teammate's claim held by the test itself, a deadline for real conditions."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable

from app.team.claims import Claim, Claims
from app.team.database import TeamDatabase
from app.team.team import Team, open_team
from tests.team.members import TeamMember, stop_hung

DEADLINE = 120.0  # seconds a condition may take to come true on a loaded machine


class Running:
    """A started `showdesk` process whose stderr lines are collected as they are written (and
    its stdout, read alongside so a full pipe never stalls it)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self.out: list[str] = []
        self._said = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._out_reader = threading.Thread(target=self._read_out, daemon=True)
        self._out_reader.start()

    def _read_out(self) -> None:
        assert self.process.stdout is not None
        self.out.append(self.process.stdout.read())

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._said:
                self.lines.append(line.rstrip("\n"))
                self._said.notify_all()
        with self._said:
            self._said.notify_all()

    def said(self, text: str) -> str:
        """Wait until a stderr line holds `text` (fails if the process ends without it)."""
        end = time.monotonic() + DEADLINE
        with self._said:
            while True:
                found = next((line for line in self.lines if text in line), None)
                if found is not None:
                    return found
                left = end - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    self.process.kill()  # never left running behind a failed test
                    self.process.wait()
                    raise AssertionError(f"never said {text!r}: {self.lines}")
                self._said.wait(min(left, 1.0))

    def finish(self) -> tuple[int, str, str]:
        """Wait for the end: exit code, stdout, the whole stderr. Still running after DEADLINE,
        the test fails with what the process said and its threads' stacks."""
        assert self.process.stdout is not None and self.process.stderr is not None
        try:
            code = self.process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            stop_hung(self.process, read=False)
            self._reader.join(timeout=10)
            raise AssertionError(
                f"still running after {DEADLINE:g} s; what it said, then its threads:\n"
                + "\n".join(self.lines)
            ) from None
        self._out_reader.join(timeout=DEADLINE)
        self._reader.join(timeout=DEADLINE)
        self.process.stdout.close()
        self.process.stderr.close()
        return code, "".join(self.out), "\n".join(self.lines)


def until(condition: Callable[[], bool], what: str) -> None:
    """Poll a real condition until it holds, or fail after DEADLINE."""
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"never came true: {what}"
        time.sleep(0.05)


def opened(member: TeamMember) -> Team:
    """The member's team database opened in the test process (its claims made from here)."""
    database = TeamDatabase(member.team_url, member=member.name)
    return open_team(database, member.server.base_url, member.server.show_id)


def hold(team: Team, lease: float = 600.0) -> tuple[Claims, list[Claim]]:
    """Claim every free chain, as a teammate's push under way would (this process holds them;
    a claim takes a share of the free chains at a time)."""
    claims = Claims(team, lease)
    held: list[Claim] = []
    while (claim := claims.claim(1000)) is not None:
        held.append(claim)
    assert held
    return claims, held
