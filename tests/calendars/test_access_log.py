"""gunicorn's access log (off unless an operator turns it on) is written by
api.gunicorn_logging.RedactedAccessLogger, named in splendor_site/gunicorn_conf.py:
a calendar app's request line keeps its path's shape and loses the secret."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

from gunicorn.config import Config

from api.gunicorn_logging import RedactedAccessLogger

ROOT = Path(__file__).resolve().parents[2]
SECRET = "pgr-aTwgwdF9R8x_GcbUCQLa5VOAEmKgjJEq1w2e3r4t5y6"


def _access_line(tmp_path: Path, path: str, query: str = "") -> str:
    config = Config()
    config.set("accesslog", str(tmp_path / "access.log"))
    config.set("access_log_format", '%(h)s "%(r)s" %(s)s path=%(U)s query=%(q)s')
    logger = RedactedAccessLogger(config)
    uri = path + (f"?{query}" if query else "")
    environ = {
        "REQUEST_METHOD": "GET", "RAW_URI": uri, "PATH_INFO": path, "QUERY_STRING": query,
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "192.0.2.7",
    }
    response = SimpleNamespace(status="200 OK", sent=512, headers=[("Content-Type", "text/calendar")])
    request = SimpleNamespace(headers=[("USER-AGENT", "Calendar/1.0")])
    logger.access(response, request, environ, timedelta(milliseconds=12))
    for handler in logger.access_log.handlers:
        handler.flush()
    return (tmp_path / "access.log").read_text()


def test_the_access_log_writes_a_calendar_request_without_its_secret(tmp_path: Path) -> None:
    line = _access_line(tmp_path, f"/calendar/{SECRET}.ics")
    assert SECRET not in line and SECRET[:12] not in line
    assert '"GET /calendar/{secret}.ics HTTP/1.1" 200 path=/calendar/{secret}.ics' in line


def test_the_access_log_writes_a_seat_link_without_its_token(tmp_path: Path) -> None:
    line = _access_line(tmp_path, "/games/k7q2mh9xwd/", query="seat=abc.DEF-ghi")
    assert "abc.DEF-ghi" not in line and "query=seat={token}" in line


def test_the_site_s_gunicorn_settings_name_this_logger() -> None:
    settings: dict[str, object] = {}
    exec((ROOT / "splendor_site" / "gunicorn_conf.py").read_text(), settings)
    assert settings["logger_class"] == "api.gunicorn_logging.RedactedAccessLogger"
