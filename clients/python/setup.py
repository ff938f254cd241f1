"""The client's wheel carries the rules engine as its top-level ``engine`` package.

The runner, the action table and the environments import ``engine``: the
repository's ``engine/`` folder, which is also a distribution of its own
(splendor-engine, engine/pyproject.toml). Rather than depend on that
distribution, the client's build takes the package from its one source,
``../../engine`` beside this folder, so ``pip install ./clients/python`` needs
nothing else. The sdist carries a copy under ``engine/`` (written by ``sdist``
below; never kept in the repository), so a wheel built from the sdist alone has it
too; an editable install maps ``engine`` to the repository's folder. What ships
of the engine (its subpackages and data files) is read from the engine's own
pyproject.toml, so the two distributions ship the same files;
tests/test_packaging.py compares the wheel's with the repository's, byte for byte.

Both distributions own ``engine/``: install one of them in an environment, not
both (pyproject.toml says why). Everything else about the distribution is in
pyproject.toml.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
#: The engine's source, relative to this folder: in the sdist beside this file,
#: else the repository's.
ENGINE = "engine" if (HERE / "engine" / "pyproject.toml").is_file() else "../../engine"
if not (HERE / ENGINE / "__init__.py").is_file():
    raise SystemExit(
        "splendor-client is built from its folder in the Splendor repository (it takes the "
        f"engine from {HERE.parent.parent / 'engine'}) or from its sdist; neither is here"
    )
_ENGINE_BUILD = tomllib.loads((HERE / ENGINE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
#: The engine's packages (``engine``, ``engine.bots``) and data, as splendor-engine ships them.
ENGINE_PACKAGES: list[str] = list(_ENGINE_BUILD["packages"])
ENGINE_PACKAGE_DATA: dict[str, list[str]] = {
    name: list(patterns) for name, patterns in _ENGINE_BUILD.get("package-data", {}).items()
}


class BuildPyAfresh(build_py):
    """The packages copied into an empty build folder. pip builds in this folder,
    and setuptools keeps ``build/lib`` between builds: a module since removed from
    the engine would otherwise stay in every later wheel."""

    def run(self) -> None:
        for package in ("splendor_client", "engine"):
            shutil.rmtree(Path(self.build_lib) / package, ignore_errors=True)
        super().run()


class SdistWithEngine(sdist):
    """The sdist with the engine's files under ``engine/`` in place of ``../../engine``."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        source = (HERE / ENGINE).resolve()
        outside = [f for f in files if not (HERE / f).resolve().is_relative_to(HERE)]
        super().make_release_tree(base_dir, [f for f in files if f not in outside])
        target = Path(base_dir) / "engine"
        for name in outside:
            relative = (HERE / name).resolve().relative_to(source)
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / relative, target / relative)
        # What ships of the engine, read by this file when the wheel is built from the sdist.
        shutil.copy2(source / "pyproject.toml", target / "pyproject.toml")
        for listing in Path(base_dir).glob("*.egg-info/SOURCES.txt"):
            lines = listing.read_text(encoding="utf-8").splitlines()
            prefix = f"{ENGINE}/"
            fixed = [f"engine/{line.removeprefix(prefix)}" if line.startswith(prefix) else line for line in lines]
            listing.write_text("\n".join(fixed) + "\n", encoding="utf-8")


setup(
    packages=["splendor_client", *ENGINE_PACKAGES],
    package_dir={"engine": ENGINE},
    package_data={"splendor_client": ["py.typed"], **ENGINE_PACKAGE_DATA},
    include_package_data=False,
    cmdclass={"build_py": BuildPyAfresh, "sdist": SdistWithEngine},
)
