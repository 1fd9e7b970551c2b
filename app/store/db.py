"""Opening a private SQLite file and bringing its schema up to date.

Both store files (the cache and the outbox) are opened here: the parent directories are created
0700, the file is created 0600 before SQLite touches it (SQLite gives its `-wal`/`-shm` companions
the database file's permissions), WAL journalling is switched on, and the numbered migrations of
`app.store.schema` are applied, each in one transaction together with `PRAGMA user_version`.

Connections run in autocommit mode (`isolation_level=None`); writers group their statements with
`transaction()`, which is explicit `BEGIN IMMEDIATE` … `COMMIT`.

The cache (synchronous NORMAL) copies its WAL into the database file in a thread of its own
(`_Checkpoints`), half a second after a write (at most twice a second): SQLite's own
checkpoint ran inside the commit that passed 1,000 pages, and an incremental sync's 1,000
changed records spread over a 1,000,000-record table write ~3,000 pages (two sort indexes):
its commit spent 0.06-0.09 s copying them and syncing the file. The outbox (synchronous FULL)
keeps SQLite's checkpoints.

A file that cannot be created or written — a read-only folder, a full disk — raises
`StoreUnavailable` naming the file and the reason in the user's words, when it is opened and on
any write (whose transaction is then rolled back: nothing of it was kept).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from app.api.errors import ProgrammingError, StoreUnavailable

Migration = Sequence[str]
Synchronous = Literal["NORMAL", "FULL"]


class StoreError(ProgrammingError):
    """A store file that this version cannot use (written by a newer ShowDesk, or corrupt)."""


READ_ONLY = "the folder or the file is read-only (or not yours to write)"
DISK_FULL = "the disk is full"
_READ_ONLY_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_READ_ONLY_CODES = frozenset(
    {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM}
)


def os_problem(exc: OSError, what: str, path: Path) -> StoreUnavailable:
    """A file system error about a store file, in the user's words."""
    if exc.errno in _READ_ONLY_ERRNOS:
        reason = READ_ONLY
    elif exc.errno in _FULL_ERRNOS:
        reason = DISK_FULL
    else:
        reason = exc.strerror or type(exc).__name__
    return StoreUnavailable(what, str(path), reason)


def unwritable(exc: BaseException, what: str, path: Path) -> StoreUnavailable | None:
    """`exc` as a StoreUnavailable when it says the file cannot be written; else None."""
    if isinstance(exc, OSError):
        return os_problem(exc, what, path)
    if isinstance(exc, sqlite3.OperationalError):
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary result code
        if code == sqlite3.SQLITE_FULL:
            return StoreUnavailable(what, str(path), DISK_FULL)
        if code in _READ_ONLY_CODES:
            return StoreUnavailable(what, str(path), READ_ONLY)
        if code == sqlite3.SQLITE_IOERR:
            return StoreUnavailable(what, str(path), f"the disk could not be written ({exc})")
    return None


def private_parents(path: Path) -> None:
    """Create the missing parent directories 0700 (existing ones are left as they are)."""
    missing = [p for p in reversed(path.parents) if not p.exists()]
    for directory in missing:
        directory.mkdir(mode=0o700)
        os.chmod(directory, 0o700)  # mkdir's mode is filtered by the umask


def _private_file(path: Path) -> None:
    """Create the file 0600 if it does not exist yet; tighten it if it does."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


def connect(
    path: Path, *, synchronous: Synchronous = "NORMAL", what: str = "store"
) -> sqlite3.Connection:
    """Open (creating it privately if needed) a WAL-mode database file."""
    try:
        private_parents(path)
        _private_file(path)
    except OSError as exc:
        raise os_problem(exc, what, path) from exc
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA page_size=8192")  # only takes effect on a new, empty file
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: index updates of big syncs stay in RAM
        conn.execute("PRAGMA busy_timeout=5000")
    except sqlite3.DatabaseError as exc:
        conn.close()
        problem = unwritable(exc, what, path)
        if problem is not None:
            raise problem from exc
        raise StoreError(f"{path}: not a ShowDesk store file ({exc})") from None
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration], *, name: str) -> int:
    """Apply the migrations after the file's `user_version`; answer the version reached.

    Migration N (1-based) brings a file from version N-1 to N, atomically.
    """
    current = user_version(conn)
    if current > len(migrations):
        raise StoreError(
            f"{name} is at schema version {current}; this ShowDesk knows up to {len(migrations)}"
        )
    for number in range(current + 1, len(migrations) + 1):
        with transaction(conn):
            for statement in migrations[number - 1]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version={number}")
    return len(migrations)


@contextmanager
def transaction(conn: sqlite3.Connection, *, begun: bool = False) -> Iterator[sqlite3.Connection]:
    """`BEGIN IMMEDIATE` (unless `begun` already) … `COMMIT`, or `ROLLBACK` if the block
    raises."""
    if not begun:
        conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk does)
            conn.execute("ROLLBACK")
        raise


# Seconds from a write to the checkpoint after it (writes meanwhile wait for the same one): a
# sync's last write is followed by the tables' refresh, which the copy would slow down.
CHECKPOINT_DELAY = 0.5
WAL_PAGES_AT_MOST = 10_000  # SQLite checkpoints in a commit past these (if the thread lags)


class _Checkpoints:
    """A thread that copies the WAL into the database file (a PASSIVE checkpoint: readers and
    writers go on meanwhile) `CHECKPOINT_DELAY` after `written()` says there was a write, on a
    connection of its own; a checkpoint that fails (the file busy, read-only) is tried after
    the next write. Closing it leaves what is left to SQLite's own (at the last close)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wanted, self._closing = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None

    def written(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="checkpoints", daemon=True)
            self._thread.start()
        self._wanted.set()

    def close(self) -> None:
        self._closing.set()
        self._wanted.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error:
            return  # no checkpoints from here: SQLite's own, past WAL_PAGES_AT_MOST
        try:
            while self._wanted.wait() and not self._closing.wait(CHECKPOINT_DELAY):
                self._wanted.clear()
                if self._closing.is_set():  # closed just before the clear, which took away
                    break  # the wake-up `close` gave: waiting again would never end
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    pass  # tried again after the next write
        finally:
            conn.close()


class Database:
    """A connection plus the lock that serialises its users (callers may use worker threads)."""

    def __init__(
        self,
        path: Path,
        migrations: Sequence[Migration],
        *,
        sync: Synchronous,
        what: str = "store",
    ) -> None:
        self.path = path
        self.what = what  # "cache", "outbox": for messages
        self.lock = threading.RLock()
        self.conn = connect(path, synchronous=sync, what=what)
        try:
            self.version = migrate(self.conn, migrations, name=str(path))
        except BaseException as exc:
            self.conn.close()
            problem = unwritable(exc, what, path)
            if problem is not None:
                raise problem from exc
            raise
        self._closed = False
        self._checkpoints: _Checkpoints | None = None
        if sync == "NORMAL":
            self._checkpoints = _Checkpoints(path)
            self.conn.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES_AT_MOST}")
        # Called before each write, and again when the file stays locked past the busy timeout:
        # stops whatever long write of lesser worth holds the file (the cache's sort index
        # builds) and answers whether it stopped any, so the write waits for it and retries.
        self.give_way: Callable[[], bool] = lambda: False

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction, holding the lock (StoreUnavailable: nothing written)."""
        with self.lock:
            try:
                self._begin()
                with transaction(self.conn, begun=True) as conn:
                    yield conn
                if self._checkpoints is not None:
                    self._checkpoints.written()
            except sqlite3.OperationalError as exc:
                problem = unwritable(exc, self.what, self.path)
                if problem is None:
                    raise
                raise problem from exc

    def _begin(self) -> None:
        """`BEGIN IMMEDIATE`, after `give_way`; once more while it gives way (a build that
        started after the first call)."""
        self.give_way()
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY
                if not (busy and self.give_way()):
                    raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._checkpoints is not None:
                self._checkpoints.close()
            with self.lock:
                self.conn.close()

    @property
    def closed(self) -> bool:
        return self._closed
