"""TLS verification is always on: no code path builds an HTTP client that does not check
certificates; a show with a self-signed certificate is refused (saying why) unless the profile
names its CA bundle, and then it is accepted."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.errors import InvalidValue, TransportError
from app.api.registry import default_registry
from app.profile.settings import Profile, ProfileStore
from app.sim import SimConfig, SimServer, generate_show
from tests.reliability.certs import self_signed
from tests.reliability.processes import one_line_failure, run

APP = Path(__file__).resolve().parents[2] / "app"
SECRET = "tls-secret"
HTTP_CLIENTS = {"Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport"}
UNVERIFIED = {"_create_unverified_context", "CERT_NONE"}


def offences(path: Path) -> list[str]:
    """Where `path` builds an HTTP client without the connection's own verification, or
    switches certificate checks off some other way."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute | ast.Name):
            name = node.attr if isinstance(node, ast.Attribute) else node.id
            if name in UNVERIFIED:
                found.append(f"{where}: {name}")
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "check_hostname" for t in node.targets
        ):
            found.append(f"{where}: check_hostname set")
        if not isinstance(node, ast.Call):
            continue
        verify = next((k.value for k in node.keywords if k.arg == "verify"), None)
        if isinstance(verify, ast.Constant) and verify.value is not True:
            found.append(f"{where}: verify={verify.value!r}")
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if callee in HTTP_CLIENTS and not _connection_verify(verify):
            found.append(f"{where}: httpx.{callee} without verify=connection.verify()")
    return found


def _connection_verify(value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "verify"
    )


def test_no_code_path_builds_a_client_that_skips_certificate_checks() -> None:
    found = [hit for path in sorted(APP.rglob("*.py")) for hit in offences(path)]
    assert found == []
    assert Connection("https://x", "https://x", "S", "s").verify() is True  # the default


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import httpx, ssl\n"
        "a = httpx.AsyncClient(verify=False)\n"
        "b = httpx.Client()\n"
        "c = ssl._create_unverified_context()\n"
        "c.check_hostname = False\n",
        encoding="utf-8",
    )
    assert len(offences(sample)) == 5


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def https_server(tls_files: tuple[Path, Path]) -> Iterator[SimServer]:
    cert, key = tls_files
    config = SimConfig(show_id="TLS-SHOW", client_secret=SECRET)
    with SimServer(generate_show("tiny", seed=3), config, tls=(str(cert), str(key))) as running:
        assert running.base_url.startswith("https://127.0.0.1:")
        yield running


def connection(server: SimServer, ca_bundle: Path | None) -> Connection:
    return Connection(
        server.base_url,
        server.auth_url,
        server.show_id,
        SECRET,
        ca_bundle=None if ca_bundle is None else str(ca_bundle),
        timeout=10,
    )


def brands(conn: Connection) -> int:
    async def fetch() -> int:
        async with ShowClient(conn, default_registry()) as client:
            return len(await client.list_all("brands"))

    return asyncio.run(fetch())


def test_a_self_signed_show_is_refused_without_its_ca_and_accepted_with_it(
    https_server: SimServer, tls_files: tuple[Path, Path]
) -> None:
    with pytest.raises(TransportError) as refused:
        brands(connection(https_server, None))
    assert "certificate is not trusted" in refused.value.message
    assert "CA bundle" in refused.value.message  # what to do about it
    assert https_server.stats.token_requests == 0  # nothing was sent, not even the secret
    assert brands(connection(https_server, tls_files[0])) == https_server.show.count("brands")


def test_a_ca_bundle_that_cannot_be_read_is_a_clear_error(tmp_path: Path) -> None:
    missing = Connection("https://x", "https://x", "S", "s", ca_bundle=str(tmp_path / "no.pem"))
    with pytest.raises(InvalidValue, match=r"CA bundle .*no\.pem cannot be used"):
        missing.verify()
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate", encoding="utf-8")
    with pytest.raises(InvalidValue, match="cannot be used"):
        Connection("https://x", "https://x", "S", "s", ca_bundle=str(garbage)).verify()


def test_the_command_line_refuses_an_untrusted_show_and_trusts_the_profiles_ca(
    https_server: SimServer, tls_files: tuple[Path, Path], tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    refused = run(https_server, cache, "sync", "--resource", "brands")
    line = one_line_failure(refused)
    assert "certificate is not trusted" in line and "CA bundle" in line

    profile = Profile(
        "TLS show",
        https_server.base_url,
        https_server.auth_url,
        https_server.show_id,
        ca_bundle=str(tls_files[0]),
    )
    ProfileStore().save(profile)
    env = {"SHOWDESK_CLIENT_SECRET": SECRET}
    trusted = run_profile("sync", "--profile", "TLS show", "--resource", "brands", env=env)
    assert trusted.returncode == 0, trusted.stderr
    status = json.loads(run_profile("status", "--profile", "TLS show", "--json", env=env).stdout)
    assert status["resources"]["brands"]["count"] == https_server.show.count("brands")


def run_profile(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
