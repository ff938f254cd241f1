"""docs/deploy.md read the way the tests run it: the systemd units' ExecStart
lines as the guide writes them (no systemd runs in a test: each becomes a
process with this virtual environment's programs and ports of its own), the
shell steps with their paths moved into a tmp folder, and step 8's nginx site
run by Debian's nginx on a port of its own.

Only ports, addresses and paths are rewritten, each replacement checked to
happen: a guide that changes what it runs changes what the tests run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import sys
from pathlib import Path

from tests.e2e_support.processes import ROOT, Process, free_port, wait_for

GUIDE = ROOT / "docs" / "deploy.md"
# The guide installs into /srv/splendor/.venv; the tests run this interpreter's.
GUIDE_VENV_BIN = "/srv/splendor/.venv/bin/"
VENV_BIN = Path(sys.executable).parent

_UNIT = re.compile(r"`/etc/systemd/system/(splendor-[\w@-]+)\.service`.*?\n```ini\n(.*?)^```", re.DOTALL | re.MULTILINE)


def guide() -> str:
    return GUIDE.read_text()


def units() -> dict[str, str]:
    """Each systemd unit the guide writes, by name (``splendor-worker@`` for the
    template), as its ini text."""
    return {name: text for name, text in _UNIT.findall(guide())}


def _specifiers(word: str, instance: str) -> str:
    # systemd's %i is the instance; %% a percent sign (Celery expands the %h left).
    return re.sub(r"%([%i])", lambda m: "%" if m.group(1) == "%" else instance, word)


def exec_start(unit: str, instance: str = "1") -> list[str]:
    """The unit's ExecStart, split as systemd splits it (continuation lines
    joined), with its specifiers filled in."""
    text = re.sub(r"\\\n\s*", " ", units()[unit])
    settings = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert settings.get("WorkingDirectory") == "/srv/splendor", unit  # the tests run from the checkout, as cwd
    return [_specifiers(word, instance) for word in shlex.split(settings["ExecStart"])]


def runnable(command: list[str], **options: str) -> list[str]:
    """``command`` with this virtual environment's program for the guide's, and
    the value after each option named in ``options`` (``--port="8101"``; ``_`` for
    ``-``) replaced; each option must be in the command."""
    program, *args = command
    assert program.startswith(GUIDE_VENV_BIN), program
    for name, value in options.items():
        option = "--" + name.replace("_", "-")
        assert option in args, f"{option} not in {command}"
        args[args.index(option) + 1] = value
    return [str(VENV_BIN / program.removeprefix(GUIDE_VENV_BIN)), *args]


def shell_block(containing: str) -> str:
    """The one ```sh block of the guide that contains ``containing``."""
    blocks = [b for b in re.findall(r"^```sh\n(.*?)^```", guide(), re.MULTILINE | re.DOTALL) if containing in b]
    assert len(blocks) == 1, f"{len(blocks)} sh blocks of docs/deploy.md contain {containing!r}"
    return blocks[0]


def moved(text: str, places: dict[str, str]) -> str:
    """``text`` with each path of ``places`` replaced (each must occur)."""
    for old, new in places.items():
        assert old in text, f"{old!r} is no longer in the guide's text"
        text = text.replace(old, new)
    return text


# --- nginx ------------------------------------------------------------------------

NGINX_SITE_FILE = "/etc/nginx/sites-available/splendor"


def nginx_site() -> str:
    """Step 8's nginx site, as the guide writes it to NGINX_SITE_FILE."""
    block = shell_block(f"cat > {NGINX_SITE_FILE} <<'EOF'")
    return block.split(f"cat > {NGINX_SITE_FILE} <<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0]


def _replaced_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in the guide's nginx site"
    return text.replace(old, new)


class Nginx(Process):
    """Debian's nginx running the guide's site: listening on a free loopback port
    instead of 80 (the IPv6 listen left out), its upstreams on the given ports,
    and everything it writes (pid, logs, buffered bodies) in ``folder``. ``site``
    is the guide's unless given (a test of what a changed line would do)."""

    def __init__(self, folder: Path, *, web_port: int, stream_port: int, site: str | None = None) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        assert os.path.exists(binary), "nginx is needed for this test (apt-get install nginx)"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        site = site if site is not None else nginx_site()
        site = _replaced_once(site, "server 127.0.0.1:8000;", f"server 127.0.0.1:{web_port};")
        site = _replaced_once(site, "server 127.0.0.1:8001;", f"server 127.0.0.1:{stream_port};")
        site = _replaced_once(site, "listen 80;", f"listen 127.0.0.1:{self.port};")
        site = _replaced_once(site, "listen [::]:80;", "")
        folder.mkdir(parents=True, exist_ok=True)
        # As root nginx would run its workers as nobody, who may not enter the tmp folder.
        user = "user root;" if os.geteuid() == 0 else ""
        temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        config = folder / "nginx.conf"
        config.write_text(
            f"{user}\nworker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
            f"events {{ worker_connections 256; }}\n"
            f"http {{\n    access_log {folder / 'access.log'};\n{temp}\n{site}\n}}\n"
        )
        super().__init__(
            "nginx",
            [binary, "-c", str(config), "-p", str(folder), "-e", str(folder / "error.log"), "-g", "daemon off;"],
            dict(os.environ),
            folder / "nginx.out",
        )
        self.error_log = folder / "error.log"

    def tail(self, lines: int = 60) -> str:
        errors = self.error_log.read_text(errors="replace").splitlines()[-lines:] if self.error_log.exists() else []
        return super().tail(lines) + "\n--- nginx error.log ---\n" + "\n".join(errors)

    def start(self) -> Nginx:
        super().start()
        wait_for(lambda: port_open(self.port) or not self.alive(), timeout=15, what="nginx listening", explain=self.tail)
        assert self.alive(), self.tail()
        return self


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False
