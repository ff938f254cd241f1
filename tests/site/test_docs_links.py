"""The documents hold together when things move:

- every variable the settings read (and every setting they set) is in
  docs/configuration.md, read from the settings modules themselves;
- every Markdown link of README.md, docs/ and clients/ resolves: the file, and an
  ``#anchor`` to one of its headings as GitHub makes their anchors;
- every reference to a section written as ``docs/api.md, "Errors"``,
  ``README's "Layout"`` or ``[stream.md](stream.md), "Formats"``, in the documents,
  the code and the templates, names a heading of that document.
"""

from __future__ import annotations

import ast
import os
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION = ROOT / "docs" / "configuration.md"
# Being replaced by the games extension contract: not documented as settings.
GOING = {
    "GAME_EVENT_CONSUMERS", "PLAYER_PROFILE_EXTRAS", "GAME_VISIBILITY_EXTRAS", "GAME_PAGE_PANELS",
    "GAME_EXPORT_EXTRAS", "GAME_COMPETITION_CHECKS", "GAME_EVENT_RECIPIENTS",
}  # fmt: skip
# Folders that are no part of the project's own text.
SKIPPED = {"node_modules", "site-packages", "staticfiles", "var", "build", "dist", "__pycache__"}


# --- the settings -----------------------------------------------------------------


def settings_modules() -> list[Path]:
    """settings.py and the settings modules of splendor_site it imports."""
    main = ROOT / "splendor_site" / "settings.py"
    found = [main]
    for node in ast.walk(ast.parse(main.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("splendor_site."):
            path = ROOT / (node.module or "").replace(".", "/")
            if path.name.endswith("settings"):
                found.append(path.with_suffix(".py"))
    return found


def settings_read(source: str) -> set[str]:
    """The environment variables a settings module reads (the first argument of its
    ``env_*`` calls) and the settings it sets (module-level UPPER_CASE names)."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("env_"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names.add(node.args[0].value)
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper() and not target.id.startswith("_"):
                names.add(target.id)
    return names


def settings_documented(text: str) -> set[str]:
    return set(re.findall(r"`([A-Z][A-Z0-9_]*)`", text))


def every_setting() -> list[str]:
    names: set[str] = set()
    for module in settings_modules():
        names |= settings_read(module.read_text())
    return sorted(names - GOING)


def test_the_settings_are_read_from_the_modules() -> None:
    modules = {path.name for path in settings_modules()}
    assert {"settings.py", "api_settings.py", "logging_settings.py"} <= modules
    names = set(every_setting())
    assert {"DEBUG", "API_THROTTLE_ANON_RATE", "LOG_FORMAT", "INBOUND_IMAP_HOST", "BROKER_VISIBILITY_TIMEOUT_SECONDS",
            "MIDDLEWARE", "CELERY_BEAT_SCHEDULE"} <= names  # fmt: skip


def test_a_setting_missing_from_the_document_is_caught() -> None:
    source = 'A = env_int("SOME_NEW_SETTING", 3)\nNESTED = {"x": env_bool("ANOTHER_ONE", False)}\n'
    assert settings_read(source) == {"A", "NESTED", "SOME_NEW_SETTING", "ANOTHER_ONE"}
    assert not settings_read(source) <= settings_documented("| `A` | 3 | ... |\n| `NESTED` | ... |")


def gunicorn_settings() -> list[str]:
    """The settings splendor_site/gunicorn_conf.py gives gunicorn (its module-level names)."""
    tree = ast.parse((ROOT / "splendor_site" / "gunicorn_conf.py").read_text())
    return sorted({
        target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
        for target in node.targets if isinstance(target, ast.Name) and target.id.islower()
    })  # fmt: skip


def test_every_gunicorn_setting_is_in_the_configuration_document() -> None:
    names = gunicorn_settings()
    assert {"bind", "workers", "worker_class", "forwarded_allow_ips"} <= set(names)
    documented = set(re.findall(r"`([a-z][a-z_]*)`", CONFIGURATION.read_text()))
    assert not set(names) - documented, "docs/configuration.md's gunicorn table lacks these"


@pytest.mark.parametrize("name", every_setting())
def test_every_setting_is_in_the_configuration_document(name: str) -> None:
    assert name in settings_documented(CONFIGURATION.read_text()), (
        f"splendor_site reads or sets {name}, which docs/configuration.md does not give"
    )


# --- headings and their anchors ----------------------------------------------------------

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)


def without_code_blocks(text: str) -> str:
    return FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def headings(text: str) -> list[str]:
    """The text of every ATX heading, its inline markup taken away."""
    found = []
    for line in without_code_blocks(text).splitlines():
        match = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            found.append(plain(match.group(1)))
    return found


def plain(markdown: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)  # a link's text
    return re.sub(r"[`*]", "", text).strip()


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case; letters, digits, spaces, hyphens
    and underscores kept, anything else dropped; each space a hyphen."""
    kept = "".join(
        char for char in heading.lower()
        if char in " -_" or unicodedata.category(char)[0] in "LN"
    )  # fmt: skip
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for heading in headings(text):
        base = slug(heading)
        seen = counts.get(base, 0)
        found.add(base if seen == 0 else f"{base}-{seen}")
        counts[base] = seen + 1
    return found


def test_anchors_are_made_as_github_makes_them() -> None:
    text = "# Deploying\n\n## One machine with `serve`\n\n## Clocks and timeouts\n\n```\n# not a heading\n```\n" \
        "## Clocks and timeouts\n\n## Splendor: Marvel (ours)\n\n## What's `GET /healthz`?\n"
    assert anchors(text) == {
        "deploying", "one-machine-with-serve", "clocks-and-timeouts", "clocks-and-timeouts-1",
        "splendor-marvel-ours", "whats-get-healthz",
    }  # fmt: skip


# --- Markdown links ----------------------------------------------------------------------


def markdown_files() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "clients").rglob("*.md"))]
    return [path for path in found if not SKIPPED & set(path.relative_to(ROOT).parts)]


LINK = re.compile(r"(?<!\\)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(text: str) -> list[str]:
    prose = re.sub(r"`[^`\n]*`", "", without_code_blocks(text))
    return LINK.findall(prose)


def broken_link(document: Path, target: str) -> str | None:
    """Why ``target``, a link in ``document``, leads nowhere; None when it resolves."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, webcal:
        return None
    path_part, _, anchor = target.partition("#")
    path = (document.parent / path_part).resolve() if path_part else document
    if not path.exists():
        return f"{target}: no such file"
    if anchor and path.suffix == ".md" and anchor not in anchors(path.read_text()):
        return f"{target}: {path.name} has no heading #{anchor}"
    return None


def every_link() -> list[tuple[str, str]]:
    return [(str(path.relative_to(ROOT)), target) for path in markdown_files() for target in links(path.read_text())]


def test_the_links_are_found() -> None:
    found = every_link()
    assert len(found) > 50
    assert ("README.md", "docs/api.md") in found
    assert links("[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n[j](k.md#l \"title\")") == ["b.md", "k.md#l"]


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## A section\n")
    document = tmp_path / "doc.md"
    document.write_text("# Here\n")
    assert broken_link(document, "other.md#a-section") is None
    assert broken_link(document, "#here") is None
    assert broken_link(document, "missing.md") == "missing.md: no such file"
    assert "no heading #no-such-section" in (broken_link(document, "other.md#no-such-section") or "")
    assert "no heading #elsewhere" in (broken_link(document, "#elsewhere") or "")


@pytest.mark.parametrize(("document", "target"), every_link())
def test_every_markdown_link_resolves(document: str, target: str) -> None:
    problem = broken_link(ROOT / document, target)
    assert problem is None, f"{document} links to {problem}"


# --- references to sections --------------------------------------------------------------

REFERENCE = re.compile(
    r"(?P<document>\bREADME(?:\.md)?|(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.md)"
    r"(?:\]\([^)\s]*\))?"  # [stream.md](stream.md), "Formats"
    r"(?:,|'s)\s+[\"“](?P<section>[^\"”]{1,80})[\"”]"
)


def references(text: str) -> list[tuple[str, str]]:
    """(document, section) for every reference in ``text``, over line breaks and
    the comment marks that continue a Python comment."""
    flowing = re.sub(r"\s*\n\s*(?:#+ )?", " ", text)
    found = [(match["document"], " ".join(match["section"].split())) for match in REFERENCE.finditer(flowing)]
    # A quoted file name after a document's is a list of files, not a section.
    return [(document, section) for document, section in found if not re.search(r"\.[a-z]{1,4}$", section)]


def referenced_document(source: Path, name: str) -> Path:
    if name in ("README", "README.md"):
        return ROOT / "README.md"
    for base in (ROOT, source.parent, ROOT / "docs"):
        if (base / name).is_file():
            return base / name
    return ROOT / name


def sources() -> list[Path]:
    """The documents, the code and the templates that may name a section (virtual
    environments, build output and run-time files left out, never walked)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = sorted(
            name for name in subfolders
            if name not in SKIPPED and not name.startswith(".") and not name.endswith(".egg-info")
        )  # fmt: skip
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in (".md", ".py", ".html", ".txt", ".yml") and path != Path(__file__).resolve():
                found.append(path)  # (this file's examples of broken references are meant)
    return found


def broken_reference(source: Path, name: str, section: str) -> str | None:
    document = referenced_document(source, name)
    if not document.is_file():
        return f'{name}, "{section}": no such document'
    titles = {heading.casefold() for heading in headings(document.read_text())}
    if section.casefold() not in titles:
        return f'{name}, "{section}": {document.relative_to(ROOT)} has no such heading'
    return None


def every_reference() -> list[tuple[str, str, str]]:
    found = set()
    for path in sources():
        for name, section in references(path.read_text(errors="replace")):
            found.add((str(path.relative_to(ROOT)), name, section))
    return sorted(found)


def test_the_references_are_found() -> None:
    found = every_reference()
    assert len(found) > 30
    assert ("docs/deploy.md", "docs/operations.md", "Metrics") in found
    text = 'see docs/api.md, "Clocks and\n    # timeouts"), the README\'s "Layout" and [stream.md](stream.md), "Formats".'
    assert references(text) == [("docs/api.md", "Clocks and timeouts"), ("README", "Layout"), ("stream.md", "Formats")]


def test_a_reference_to_a_missing_section_is_caught() -> None:
    source = ROOT / "docs" / "deploy.md"
    assert broken_reference(source, "docs/api.md", "Errors") is None
    assert broken_reference(source, "api.md", "Limits") is None
    assert "has no such heading" in (broken_reference(source, "README", "Configuration") or "")
    assert "no such document" in (broken_reference(source, "docs/no-such.md", "Anything") or "")


@pytest.mark.parametrize(("source", "document", "section"), every_reference())
def test_every_reference_to_a_section_names_a_heading(source: str, document: str, section: str) -> None:
    problem = broken_reference(ROOT / source, document, section)
    assert problem is None, f"{source} refers to {problem}"
