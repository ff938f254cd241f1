"""The client's distribution carries the rules engine (setup.py): the sdist, and the
wheel built from that sdist alone, hold the repository's ``engine/`` package file
for file and byte for byte, nothing missing and nothing more; and the client
depends on no other distribution for it, with ranges, not pins, outside its test
extra.

These tests build from the repository (they need ``engine/`` beside
``clients/python``), from a copy of the two folders so that the checkout gets no
build folders.
"""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[3]
ENGINE = REPOSITORY / "engine"
CLIENT = REPOSITORY / "clients" / "python"

pytestmark = pytest.mark.skipif(
    not (ENGINE / "pyproject.toml").is_file(), reason="runs in the repository, beside the engine's source"
)

#: Not the engine package's: its own distribution's files, and what builds and runs leave.
_NOT_SHIPPED = {"README.md", "pyproject.toml"}
_LEFT_BY_TOOLS = shutil.ignore_patterns(
    "__pycache__", "*.pyc", "build", "dist", "*.egg-info", ".*"
)


def engine_files() -> dict[str, bytes]:
    """The repository's engine package: every file below ``engine/`` by its path
    inside the package, less the distribution's own files and tools' leftovers."""
    files: dict[str, bytes] = {}
    for path in sorted(ENGINE.rglob("*")):
        relative = path.relative_to(ENGINE)
        if not path.is_file() or relative.as_posix() in _NOT_SHIPPED:
            continue
        if any(part in {"__pycache__", "build", "dist"} or part.startswith(".") or part.endswith(".egg-info")
               for part in relative.parts) or path.suffix == ".pyc":
            continue
        files[relative.as_posix()] = path.read_bytes()
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel): ``python -m build`` makes the sdist, then the wheel from it alone."""
    pytest.importorskip("build", reason="the client's test extra installs build")
    work = tmp_path_factory.mktemp("client-build")
    shutil.copytree(ENGINE, work / "engine", ignore=_LEFT_BY_TOOLS)
    shutil.copytree(CLIENT, work / "clients" / "python", ignore=_LEFT_BY_TOOLS)
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"), str(work / "clients" / "python")],
        check=True, capture_output=True, text=True,
    )
    (sdist,) = (work / "dist").glob("*.tar.gz")
    (wheel,) = (work / "dist").glob("*.whl")
    return sdist, wheel


def test_the_wheel_built_from_the_sdist_holds_the_repositorys_engine_byte_for_byte(built: tuple[Path, Path]) -> None:
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name.removeprefix("engine/"): archive.read(name)
                   for name in archive.namelist() if name.startswith("engine/")}
    expected = engine_files()
    assert "py.typed" in expected and "data/base_cards.csv" in expected and "bots/__init__.py" in expected
    assert sorted(shipped) == sorted(expected)
    assert [name for name in expected if shipped[name] != expected[name]] == []


def test_the_sdist_carries_the_engine_inside_its_own_folder(built: tuple[Path, Path]) -> None:
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile()]
        root = members[0].name.split("/", 1)[0]
        carried = {m.name.removeprefix(f"{root}/engine/"): archive.extractfile(m).read()  # type: ignore[union-attr]
                   for m in members if m.name.startswith(f"{root}/engine/")}
        listing = archive.extractfile(f"{root}/splendor_client.egg-info/SOURCES.txt").read().decode()  # type: ignore[union-attr]
    assert not [m.name for m in members if ".." in m.name.split("/")]
    assert "../" not in listing
    # The engine's pyproject.toml goes too: setup.py reads from it what ships.
    assert carried.pop("pyproject.toml") == (ENGINE / "pyproject.toml").read_bytes()
    assert carried == engine_files()


def test_the_wheel_depends_on_no_engine_distribution_and_pins_only_its_test_extra(built: tuple[Path, Path]) -> None:
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        metadata = email.message_from_bytes(archive.read("splendor_client-0.1.0.dist-info/METADATA"))
        top_level = archive.read("splendor_client-0.1.0.dist-info/top_level.txt").decode().split()
    requirements = metadata.get_all("Requires-Dist") or []
    assert sorted(top_level) == ["engine", "splendor_client"]
    assert not [r for r in requirements if r.lower().startswith("splendor")]
    pinned = [r for r in requirements if "==" in r.split(";")[0] and 'extra == "test"' not in r]
    assert pinned == []
    assert "httpx<1,>=0.27" in requirements
