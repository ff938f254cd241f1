"""splendor-bot's settings: --config FILE (TOML) with every flag as a key, a flag
winning over its key, the README's table of keys and its example, and status 2
with the flag (or the key and the file) named for every mistake, settings that
would do nothing alone included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from client_fakes import SERVER, TOKEN
from splendor_client import runner
from splendor_client.runner import load_bot
from splendor_client.runner_config import BY_NAME, AcceptFilter, chat_clean, load

from engine.bots import ISMCTSBot

README = Path(__file__).resolve().parents[1] / "README.md"


def toml(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bot.toml"
    path.write_text(text)
    return str(path)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The error splendor-bot stops with (status 2, as argparse's), before connecting."""
    monkeypatch.setenv("SPLENDOR_TOKEN", TOKEN)
    with pytest.raises(SystemExit) as caught:
        runner.main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: splendor-bot"), err
    return err.splitlines()[-1]


def test_a_config_file_sets_every_key_and_a_flag_given_wins_over_its_key(tmp_path: Path) -> None:
    path = toml(tmp_path, """
server = "https://splendor.example"
bot = "ismcts"
playouts = 300
seconds = 2.5
seed = 7
accept_invitations = true
max_games = 3
games = 4
exit_when_done = true
greeting = "Good luck!"
verbose = 1

[accept]
variants = ["base"]
seats = [2, 3]
rated = false
from = ["carol", "dave"]
min_move_hours = 12
max_move_hours = 72.5

[create]
variant = "marvel"
seats = 3
invite = ["bob"]
""")
    config = load(["--config", path])
    assert (config.server, config.bot, config.playouts, config.seconds, config.seed) == (
        "https://splendor.example", "ismcts", 300, 2.5, 7)
    assert config.accept == AcceptFilter(variants=("base",), seats=(2, 3), rated=False, players=("carol", "dave"),
                                         min_move_hours=12, max_move_hours=72.5)  # fmt: skip
    assert (config.accept_invitations, config.max_games, config.games, config.exit_when_done) == (True, 3, 4, True)
    assert (config.create, config.invite, config.greeting, config.verbose) == (("marvel", 3), ("bob",), "Good luck!", 1)

    flags = load(["--config", path, "--playouts", "50", "--accept-variant", "marvel", "--invite", "erin",
                  "--create", "base:2", "--no-exit-when-done", "--server", SERVER])  # fmt: skip
    # A repeated flag replaces the file's list; it does not add to it.
    assert flags.playouts == 50 and flags.accept.variants == ("marvel",) and flags.invite == ("erin",)
    assert flags.create == ("base", 2) and not flags.exit_when_done and flags.server == SERVER
    assert flags.given["playouts"] == "--playouts" and flags.given["games"] == f"games in {path}"


def test_create_may_be_written_as_the_flag_writes_it(tmp_path: Path) -> None:
    config = load(["--config", toml(tmp_path, f'server = "{SERVER}"\ncreate = "marvel:4"\n')])
    assert config.create == ("marvel", 4)


def test_every_key_is_in_the_readme_s_table_with_its_type_and_the_example_file_loads(tmp_path: Path) -> None:
    text = README.read_text()
    section = text[text.index("## The bot runner"):]
    section = section[: section.index("\n## ", 3)]
    listed = re.findall(r"^\| `([a-z_.]+)` \| ([a-z ]+) \|", section, re.MULTILINE)
    assert {name for name, _ in listed} == set(BY_NAME)
    kinds = {"text": "text", "int": "integer", "number": "number", "bool": "boolean", "texts": "list of texts",
             "ints": "list of integers"}  # fmt: skip
    assert {name: kind for name, kind in listed} == {k.name: kinds[k.kind] for k in BY_NAME.values()}
    example = re.search(r"```toml\n(.*?)```", section, re.DOTALL)
    assert example is not None
    config = load(["--config", toml(tmp_path, example.group(1))])
    assert config.bot == "ismcts" and config.playouts == 300 and config.accept_invitations


@pytest.mark.parametrize(
    "text, said",
    [
        ('acept_invitations = true', "unknown key 'acept_invitations' (did you mean 'accept_invitations'?)"),
        ('[accept]\nvariant = ["base"]', "unknown key 'accept.variant' (did you mean 'accept.variants'?)"),
        ('[colours]\nred = 1', "unknown key 'colours'"),
        ('games = "2"', "games must be a whole number, not '2'"),
        ('playouts = true', "playouts must be a whole number, not True"),
        ('accept_invitations = "yes"', "accept_invitations must be true or false, not 'yes'"),
        ('[accept]\nseats = [2, "3"]', "accept.seats must be a list of whole numbers, such as [2, 3], not [2, '3']"),
        ('[accept]\nseats = [5]', "accept.seats: a game has 2 to 4 seats, not 5"),
        ('[create]\ninvite = "bob"', """create.invite must be a list of texts, such as ["a", "b"], not 'bob'"""),
        ('accept = true', "accept is a table of keys ([accept]), not True"),
        ('seconds = 0', "seconds: must be more than 0, not 0"),
        ('seconds = inf', "seconds: must be a finite number, not inf"),
        ('seconds = nan', "seconds: must be a finite number, not nan"),
        ('[accept]\nmax_move_hours = inf', "accept.max_move_hours: must be a finite number, not inf"),
        ('greeting = " \\t\\n"', "greeting: is empty once cleaned as the table talk stores it"),
        ('greeting = ""', "greeting: is empty once cleaned"),
        ('greeting = "' + "x" * 501 + '"', "greeting: a line of table talk has at most 500 characters"),
        ('server = "splendor.example"', "server: the address starts with http:// or https://"),
        ('server = [', "is not valid TOML"),
    ],
)
def test_a_mistake_in_the_file_is_refused_naming_the_key_and_the_file(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = toml(tmp_path, text + "\n")
    error = refused(["--server", SERVER, "--config", path], capsys, monkeypatch)
    assert path in error and said in error, error


def test_a_missing_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    error = refused(["--config", str(tmp_path / "nope.toml")], capsys, monkeypatch)
    assert f"cannot read the config file {tmp_path / 'nope.toml'}" in error


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--games", "2"], "--games does nothing without --create or --accept-invitations"),
        (["--max-games", "2"], "--max-games does nothing without --create or --accept-invitations"),
        (["--invite", "bob"], "--invite needs --create"),
        (["--create", "base:2", "--invite", "bob", "--invite", "carol"], "a game of 2 seats holds at most 1 invited, not 2"),
        (["--accept-variant", "base"], "--accept-variant filters invitations: it needs --accept-invitations"),
        (["--no-accept-rated"], "--accept-rated filters invitations: it needs --accept-invitations"),
        (["--accept-from", "carol"], "--accept-from filters invitations"),
        (["--accept-invitations", "--accept-min-move-hours", "72", "--accept-max-move-hours", "24"],
         "--accept-min-move-hours (72) is more than --accept-max-move-hours (24)"),
        (["--playouts", "300"], "--playouts is the search bot's budget: the greedy bot takes none (only --bot ismcts)"),
        (["--bot", "random", "--seconds", "2"], "--seconds is the search bot's budget: the random bot takes none"),
        (["--bot", "client_fakes:LastMoveBot", "--playouts", "3"], "a MODULE:CLASS bot takes none"),
        (["--bot", "ismcts:300"], "--bot: 'ismcts:300' reads as MODULE:CLASS; the ismcts bot's budget is its own "
                                  "setting: --bot ismcts --playouts N"),
        (["--bot", "client_fakes:LastMoveBot", "--seed", "3"], "--seed seeds the engine's bots"),
        (["--bot", "clever"], "--bot: unknown bot 'clever'"),
        (["--playouts", "0", "--bot", "ismcts"], "argument --playouts: must be at least 1, not 0"),
        (["--bot", "ismcts", "--seconds", "inf"], "argument --seconds: must be a finite number, not inf"),
        (["--bot", "ismcts", "--seconds", "nan"], "argument --seconds: must be a finite number, not nan"),
        (["--greeting", "  "], "argument --greeting: is empty once cleaned as the table talk stores it"),
        (["--greeting", "\u200b\n"], "argument --greeting: is empty once cleaned"),
        (["--accept-invitations", "--accept-variant", "chess"], "argument --accept-variant: 'chess' is not a variant"),
        (["--create", "base:9"], "argument --create: a game has 2 to 4 seats, not 9"),
    ],
)
def test_a_setting_that_does_nothing_alone_or_cannot_work_is_refused_naming_its_flag(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    error = refused(["--server", SERVER, *argv], capsys, monkeypatch)
    assert said in error, error


def test_a_setting_from_the_file_that_does_nothing_is_named_with_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = toml(tmp_path, '[accept]\nvariants = ["base"]\n')
    error = refused(["--server", SERVER, "--config", path], capsys, monkeypatch)
    assert f"accept.variants in {path} filters invitations: it needs --accept-invitations" in error
    path = toml(tmp_path, 'bot = "greedy"\nplayouts = 300\n')
    error = refused(["--server", SERVER, "--config", path], capsys, monkeypatch)
    assert f"playouts in {path} is the search bot's budget: the greedy bot takes none" in error


@pytest.mark.parametrize(
    "text, argv, dropped, why",
    [
        ('bot = "ismcts"\nplayouts = 300\nseconds = 2', ["--bot", "greedy"], ["playouts", "seconds"],
         "--bot greedy takes no search budget (only ismcts does)"),
        ('seed = 3', ["--bot", "client_fakes:LastMoveBot"], ["seed"], "--bot client_fakes:LastMoveBot is made with no arguments"),
        ('accept_invitations = true\nmax_games = 2\n[accept]\nvariants = ["base"]\nrated = false',
         ["--no-accept-invitations"], ["accept.rated", "accept.variants", "max_games"], "--no-accept-invitations"),
    ],
)
def test_a_flag_that_overrides_the_key_a_file_s_setting_depends_on_makes_it_ignored_and_logged(
    text: str, argv: list[str], dropped: list[str], why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = toml(tmp_path, text + "\n")
    config = load(["--server", SERVER, "--config", path, *argv])
    assert (config.playouts, config.seconds, config.accept, config.max_games) == (None, None, AcceptFilter(), None)
    assert not set(dropped) & set(config.given)
    assert all(any(note.startswith(f"{name} in {path} is ignored: {why}") for note in config.ignored) for name in dropped)
    assert len(config.ignored) == len(dropped)

    async def ran(*args: object) -> int:
        return 0

    monkeypatch.setattr(runner, "_run", ran)
    monkeypatch.setenv("SPLENDOR_TOKEN", TOKEN)
    caplog.set_level("INFO")
    assert runner.main(["--server", SERVER, "--config", path, *argv]) == 0
    for name in dropped:
        assert any(r.levelname == "INFO" and r.getMessage().startswith(f"{name} in {path} is ignored") for r in caplog.records)


def test_a_flag_does_not_drop_what_the_command_line_itself_gave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The budget on the command line, the bot in the file: refused, not ignored.
    path = toml(tmp_path, 'bot = "greedy"\n')
    error = refused(["--server", SERVER, "--config", path, "--playouts", "300"], capsys, monkeypatch)
    assert "--playouts is the search bot's budget: the greedy bot takes none" in error
    path = toml(tmp_path, "accept_invitations = true\n")
    error = refused(["--server", SERVER, "--config", path, "--no-accept-invitations", "--accept-variant", "base"],
                    capsys, monkeypatch)  # fmt: skip
    assert "--accept-variant filters invitations: it needs --accept-invitations" in error


def test_the_server_is_required_from_the_flag_or_the_file(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert "--server is required (or server in the config file)" in refused(["--accept-invitations"], capsys, monkeypatch)


def test_the_search_bot_gets_its_budget() -> None:
    bot = load_bot("ismcts", seed=1, playouts=300)()
    assert isinstance(bot, ISMCTSBot) and bot.playouts == 300 and bot.seconds is None
    timed = load_bot("ismcts", seconds=1.5)()
    assert isinstance(timed, ISMCTSBot) and timed.seconds == 1.5
    with pytest.raises(ValueError, match="takes no budget"):
        load_bot("greedy", playouts=3)


@pytest.mark.parametrize(
    "text, stored",
    [
        ("gl", "gl"),
        ("  gl \n", "gl"),
        ("good\tluck", "good luck"),
        ("a \r\nb\rc", "a\nb\nc"),
        ("g\u200bl\x07\u202e", "gl"),  # a zero-width space, a bell, a right-to-left override
        ("line one  \n\n  line two", "line one\n\n  line two"),
        ("caf\u00e9 \u2764", "caf\u00e9 \u2764"),
    ],
)
def test_chat_clean_gives_the_text_as_the_server_stores_it(text: str, stored: str) -> None:
    assert chat_clean(text) == stored


def test_a_greeting_is_measured_once_cleaned() -> None:
    assert load(["--server", SERVER, "--greeting", "x" * 500 + "   "]).greeting == "x" * 500 + "   "
