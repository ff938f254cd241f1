"""Every string a person reads ships in English, Italian and Latvian.

- Every template's words are marked for translation: text outside
  ``{% translate %}``/``{% blocktranslate %}`` (and the attributes a person reads:
  title, alt, placeholder, aria-label) fails, naming the file and the words.
- Every msgid of every Italian and Latvian catalog is translated (not empty, not
  fuzzy), keeps the msgid's placeholders, and the catalog's Plural-Forms is the
  language's (Latvian has three forms).
- Every compiled catalog (.mo) holds what its .po says, so that a catalog edited
  and not compiled fails here rather than showing English.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import polib
import pytest
from django.apps import apps
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def _project_folders() -> tuple[str, ...]:
    """The project's installed apps (those the app registry finds in this
    repository), and the packages whose catalogs settings.LOCALE_PATHS names
    (engine, core, api: no apps of their own). A new app is covered unnamed."""
    folders = {Path(config.path).resolve() for config in apps.get_app_configs()}
    folders |= {Path(path).resolve().parent for path in settings.LOCALE_PATHS}
    return tuple(sorted(str(folder.relative_to(ROOT)) for folder in folders if _ours(folder)))


def _ours(folder: Path) -> bool:
    """In this repository and not in an installed package (a virtual environment
    may sit in the checkout)."""
    if not folder.is_relative_to(ROOT):
        return False
    parts = folder.relative_to(ROOT).parts
    return "site-packages" not in parts and not any(part.startswith(".") for part in parts)


APPS = _project_folders()
LANGUAGES = ("it", "lv")
PLURAL_FORMS = {
    "it": "nplurals=2; plural=(n != 1);",
    "lv": "nplurals=3; plural=(n % 10 == 0 || n % 100 >= 11 && n % 100 <= 19) ? 0 : "
    "(n % 10 == 1 && n % 100 != 11) ? 1 : 2;",
}
# Names that are the same in every language: the service's and the games'.
NAMES = ("Splendor by post", "Splendor: Marvel", "Splendor", "Marvel", "S.H.I.E.L.D.")


def templates() -> list[Path]:
    found: list[Path] = []
    for app in APPS:
        for path in sorted((ROOT / app).glob("**/templates/**/*")):
            if path.suffix in (".html", ".txt") and path.is_file():
                found.append(path)
    return found


def catalogs() -> list[Path]:
    return [
        path
        for app in APPS
        for language in LANGUAGES
        for path in sorted((ROOT / app / "locale" / language / "LC_MESSAGES").glob("*.po"))
    ]


_MARKED = re.compile(
    r"{%-?\s*(?:blocktranslate|blocktrans)\b.*?%}.*?{%-?\s*(?:endblocktranslate|endblocktrans)\s*-?%}"
    r"|{%-?\s*(?:translate|trans)\s.*?%}",
    re.DOTALL,
)
_COMMENT = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}|<!--.*?-->", re.DOTALL)
_CODE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG_OR_VARIABLE = re.compile(r"{%.*?%}|{{.*?}}", re.DOTALL)
_READ_ATTRIBUTES = re.compile(r"""\b(title|alt|placeholder|aria-label)\s*=\s*("[^"]*"|'[^']*')""", re.IGNORECASE)
_HTML_TAG = re.compile(r"<[^>]*>", re.DOTALL)
_WORD = re.compile(r"[^\W\d_]{2,}")


def unmarked_words(source: str, *, is_html: bool) -> list[str]:
    """The words of a template that no translate tag covers."""
    text = _COMMENT.sub(" ", source)
    text = _MARKED.sub(" ", text)
    if is_html:
        text = _CODE.sub(" ", text)
        attributes = " ".join(value for _, value in _READ_ATTRIBUTES.findall(text))
        text = _HTML_TAG.sub(" ", text) + " " + attributes.replace('"', " ").replace("'", " ")
    text = _TAG_OR_VARIABLE.sub(" ", text)
    text = html.unescape(text)
    for name in NAMES:
        text = text.replace(name, " ")
    return _WORD.findall(text)


def test_the_checker_finds_words_outside_the_translate_tags():
    source = (
        '{% load i18n %}<p title="Your turn">{% translate "Take three tokens" %} {{ name }}</p>'
        "<p>{% blocktranslate trimmed with n=count %}You have {{ n }} cards{% endblocktranslate %}</p>"
        "<p>Left in English</p><style>p{color:red}</style>"
    )
    assert unmarked_words(source, is_html=True) == ["Left", "in", "English", "Your", "turn"]
    assert unmarked_words("{% translate 'Hello' %} {{ name }},\nSplendor by post", is_html=False) == []


@pytest.mark.parametrize("path", templates(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_word_of_a_template_is_marked_for_translation(path):
    words = unmarked_words(path.read_text(encoding="utf-8"), is_html=path.suffix == ".html")
    assert not words, f"{path.relative_to(ROOT)} has words outside {{% translate %}}: {' '.join(words[:20])}"


def test_the_apps_are_read_from_the_app_registry():
    assert {"accounts", "games", "notifications", "chat", "engine", "core", "api"} <= set(APPS)
    assert not {"django", "rest_framework", "anymail"} & {app.split("/")[0] for app in APPS}


def test_every_app_with_templates_or_marked_strings_has_both_catalogs():
    with_templates = {path.relative_to(ROOT).parts[0] for path in templates()}
    assert {"accounts", "api", "games", "notifications", "webhooks"} <= with_templates
    for app in sorted(with_templates):
        for language in LANGUAGES:
            assert (ROOT / app / "locale" / language / "LC_MESSAGES" / "django.po").is_file(), (app, language)


_PLACEHOLDER = re.compile(r"%\([a-z_0-9]+\)[sd]|%[sd]|{[a-z_0-9]*}")


@pytest.mark.parametrize("path", catalogs(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_msgid_has_its_translation(path):
    catalog = polib.pofile(str(path))
    language = path.parts[-3]
    assert catalog.metadata.get("Plural-Forms", "").replace(" ", "") == PLURAL_FORMS[language].replace(" ", "")
    untranslated = [entry.msgid for entry in catalog if not entry.obsolete and not entry.translated()]
    assert not untranslated, f"{path.relative_to(ROOT)}: {len(untranslated)} untranslated: {untranslated[:10]}"
    fuzzy = [entry.msgid for entry in catalog if "fuzzy" in entry.flags and not entry.obsolete]
    assert not fuzzy, f"{path.relative_to(ROOT)}: fuzzy entries: {fuzzy[:10]}"
    nplurals = int(PLURAL_FORMS[language].split(";")[0].split("=")[1])
    for entry in catalog:
        if entry.obsolete:
            continue
        wanted = sorted(set(_PLACEHOLDER.findall(entry.msgid)) | set(_PLACEHOLDER.findall(entry.msgid_plural or "")))
        forms = [entry.msgstr] if not entry.msgid_plural else [entry.msgstr_plural[k] for k in range(nplurals)]
        for form in forms:
            found = sorted(set(_PLACEHOLDER.findall(form)))
            # A plural form may leave the count out ("un" for one), never invent a placeholder.
            assert set(found) <= set(wanted), f"{path.relative_to(ROOT)}: {entry.msgid!r} -> {form!r}"
            if not entry.msgid_plural:
                assert found == wanted, f"{path.relative_to(ROOT)}: {entry.msgid!r} -> {form!r}"


@pytest.mark.parametrize("path", catalogs(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_catalog_is_compiled_as_it_reads(path):
    compiled = path.with_suffix(".mo")
    assert compiled.is_file(), f"{compiled.relative_to(ROOT)} is missing: run manage.py compilemessages"
    source = {(entry.msgctxt, entry.msgid): entry for entry in polib.pofile(str(path)) if entry.translated()}
    built = {(entry.msgctxt, entry.msgid): entry for entry in polib.mofile(str(compiled)) if entry.msgid}
    assert source.keys() == built.keys(), f"{compiled.relative_to(ROOT)} is stale: run manage.py compilemessages"
    for key, entry in source.items():
        assert (entry.msgstr, entry.msgstr_plural) == (built[key].msgstr, built[key].msgstr_plural), key
