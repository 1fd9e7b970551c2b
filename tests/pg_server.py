"""A throwaway PostgreSQL server for team-mode tests: its own folder, loopback only, a free port.

The suite never uses a system cluster (`make test` installs the server's binaries but leaves no
cluster running, packaging/system-deps.sh). `initdb` makes a cluster in a temporary folder with a
password for the superuser (scram on TCP, so the tests exercise the same pgpass/keyring path a
team member uses), `pg_ctl` starts it on 127.0.0.1 at a free port with fsync off, and `stop()`
removes it all. PostgreSQL refuses to run as root: when the suite runs as root the commands run as
the `postgres` system user (`runuser`) in a folder that user owns.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "showdesk_test"


def server_binaries() -> Path:
    """Where `initdb` and `pg_ctl` are: the newest `/usr/lib/postgresql/N/bin`, else PATH."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise RuntimeError(
            "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: `make test` "
            "installs them (packaging/system-deps.sh --postgres)."
        )
    return Path(initdb).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayPostgres:
    """One PostgreSQL server for a test session; `url(db)` and `create_database(name)`."""

    def __init__(self) -> None:
        self.bin = server_binaries()
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="showdesk-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.password = secrets.token_hex(12)
        self.pgpass = self.root / "pgpass"
        self._databases = 0

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> ThrowawayPostgres:
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(pwfile, "postgres", "postgres")
        os.chmod(self.root, 0o700)
        self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={pwfile}",
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        self.resume()
        self.pgpass.write_text(f"127.0.0.1:{self.port}:*:{SUPERUSER}:{self.password}\n")
        self.pgpass.chmod(0o600)
        return self

    def resume(self) -> None:
        """Start the server (again, after `halt`): same folder, same port, same databases."""
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-l",
                  str(self.root / "server.log"), "-o", options, "start")  # fmt: skip

    def halt(self) -> None:
        """Stop the server as an administrator restarting it would (`-m fast`: sessions are
        ended); `resume()` starts it again."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The database's URL, without its password (that comes from the pgpass file)."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database on this server; returns its URL."""
        import psycopg

        self._databases += 1
        name = name or f"team_{self._databases}"
        with psycopg.connect(self.url(), password=self.password, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
