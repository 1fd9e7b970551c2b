"""The outbox's audit log, its export, and the outbox schema migrations."""

from __future__ import annotations

import csv
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.store.outbox import NewChange, Outbox
from app.store.schema import OUTBOX_MIGRATIONS, OUTBOX_V1, OUTBOX_V2, OUTBOX_V3
from app.sync.files.audit_export import export

AT = datetime(2025, 5, 7, 12, 0, tzinfo=UTC)


def _pushed(box: Outbox) -> None:
    update = box.add(
        NewChange(
            resource="customers",
            op="update",
            record_id="c1",
            payload={"id": "c1", "city": "Clinton", "priceZone": 2},
            changed_fields=("city", "priceZone"),
            base={"id": "c1", "city": "Salem"},
        )
    )
    delete = box.add(NewChange(resource="warehouses", op="delete", record_id="w1"))
    box.mark_sending([update, delete])
    for seq in (update, delete):
        change = box.get(seq)
        assert change is not None
        box.audit(change, "ok")


def test_audit_rows_per_field(tmp_path: Path) -> None:
    with Outbox(tmp_path / "o.db", clock=lambda: AT) as box:
        _pushed(box)
        rows = box.audit_rows()
        assert [(r.record_id, r.field, r.before, r.after, r.result) for r in rows] == [
            ("c1", "city", "Salem", "Clinton", "ok"),
            ("c1", "priceZone", None, 2, "ok"),
            ("w1", None, None, None, "ok"),
        ]
        assert rows[0].at == "2025-05-07T12:00:00.000+00:00"
        assert len(box.audit_rows(resource="warehouses")) == 1
        assert len(box.audit_rows(record_id="c1", limit=1)) == 1


def test_export_audit_csv_and_json(tmp_path: Path) -> None:
    with Outbox(tmp_path / "o.db", clock=lambda: AT) as box:
        _pushed(box)
        assert export(box.audit_rows(), tmp_path / "audit.csv", "csv") == 3
        assert export(box.audit_rows(), tmp_path / "audit.json", "json") == 3
    with open(tmp_path / "audit.csv", encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    assert table[0]["field"] == "city" and table[0]["before"] == "Salem"
    assert table[1]["after"] == "2" and table[2]["field"] == ""
    data = json.loads((tmp_path / "audit.json").read_text(encoding="utf-8"))
    assert data[1]["after"] == 2 and data[2]["resource"] == "warehouses"
    assert not list(tmp_path.glob("*.part"))


def test_v1_outbox_gains_audit_and_keeps_changes(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    conn = sqlite3.connect(path)
    for statement in OUTBOX_V1:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO changes (resource, record_id, op, payload, created_at, updated_at) "
        "VALUES ('customers', 'c1', 'update', '{\"city\": \"X\"}', 't', 't')"
    )
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with Outbox(path) as box:
        (change,) = box.pending_for_push()
        assert change.payload == {"city": "X"} and change.state == "pending"
        box.mark_sending([change.seq])
        box.audit(change, "ok")
        assert len(box.audit_rows()) == 1
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(OUTBOX_MIGRATIONS)
    finally:
        conn.close()


def test_v2_outbox_gains_the_server_id_index(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    conn = sqlite3.connect(path)
    for statement in (*OUTBOX_V1, *OUTBOX_V2):
        conn.execute(statement)
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()
    with Outbox(path) as box:
        assert box.counts()["pending"] == 0
    sql = "SELECT seq FROM changes WHERE resource = 'c' AND server_id = 'x'"
    assert "changes_server" in _plan(path, sql)


def _plan(path: Path, sql: str) -> str:
    """SQLite's query plan for `sql` in the file at `path`, as one text."""
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall())
    finally:
        conn.close()


def test_v3_outbox_gains_the_push_index_and_its_pushes_are_counted(tmp_path: Path) -> None:
    """v4: the last pushes are counted over `audit_push` (app/store/audit.py `last_pushes`)."""
    path = tmp_path / "outbox.db"
    conn = sqlite3.connect(path)
    for statement in (*OUTBOX_V1, *OUTBOX_V2, *OUTBOX_V3):
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO audit (at, seq, resource, record_id, op, field, result) "
        "VALUES (?, ?, 'customers', ?, 'update', 'city', ?)",
        [(f"2026-11-23T09:00:{n % 60:02}.000+00:00", n, f"c{n}", "applied") for n in range(500)],
    )
    conn.execute("PRAGMA user_version=3")
    conn.commit()
    conn.close()
    with Outbox(path) as box:
        (push,) = box.last_pushes(timedelta(minutes=2), 5)
        assert push.counts == {("customers", "applied"): 500}
        assert (push.first_at, push.last_at) == ("2026-11-23T09:00:00.000+00:00",
                                                 "2026-11-23T09:00:59.000+00:00")  # fmt: skip
    sql = "SELECT count(*) FROM audit WHERE at BETWEEN 'a' AND 'b'"
    assert "COVERING INDEX audit_push" in _plan(path, sql)
