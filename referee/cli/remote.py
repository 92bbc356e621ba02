"""Remote bots: `referee keygen`, `referee connect`, and the organiser's `--listen` and
`--key` options for commands that seat `remote:NAME=PUBLIC_KEY_FILE` (protocols/remote.md)."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import click

from referee.cli.exit_codes import INTERRUPTED, TERMINATED
from referee.cli.errors import Stopped
from referee.cli.options import compose
from referee.errors import ConfigError
from referee.players.lineup import BotSpec, LaunchSettings
from referee.players.relay import Relay, RelaySettings, RelayStop
from referee.players.remote_seats import RemoteSettings
from referee.processes.bot_command import default_label, split_bot_command
from referee.transport.curve_keys import read_public_key, read_secret_key, write_key_pair
from referee.transport.endpoints import check_listenable, parse_tcp_address

DEFAULT_LISTEN = "tcp://0.0.0.0:5555"  # every interface, so contestants elsewhere reach it
DEFAULT_KEY = "referee.key"  # in the folder the command runs in

remote_options = compose(
    click.option("--listen", "listen", default=None, metavar="tcp://ADDRESS:PORT",
                 help="Where remote seats (remote:NAME=PUBLIC_KEY_FILE) connect, over "
                      f"CurveZMQ [default with remote seats: {DEFAULT_LISTEN}]."),
    click.option("--key", "referee_key", type=click.Path(dir_okay=False, path_type=Path),
                 default=DEFAULT_KEY, show_default=True,
                 help="The referee's secret key file (`referee keygen referee`; hand out "
                      "referee.pub), for remote seats."),
)


def with_remote(settings: LaunchSettings, specs: Sequence[BotSpec], listen: str | None,
                referee_key: Path) -> LaunchSettings:
    """`settings` with where remote seats connect, if any BOT is one; ConfigError (one
    line, before any game) for a bad address or key file."""
    remote = [spec.remote for spec in specs if spec.remote is not None]
    if not remote:
        if listen is not None:
            raise ConfigError("--listen is for remote seats (remote:NAME=PUBLIC_KEY_FILE), "
                              "and no BOT is one")
        return settings
    address = parse_tcp_address(listen or DEFAULT_LISTEN, listening=True)
    check_listenable(address)
    if not referee_key.exists():
        raise ConfigError(f"the referee's key {referee_key} does not exist: make it with "
                          "`referee keygen referee` (and give contestants referee.pub), "
                          "or name it with --key")
    remote_settings = RemoteSettings.make(address, referee_key, remote, settings.times)
    # No local bot may read the referee's secret key: it could pose as the referee.
    return replace(settings, remote=remote_settings,
                   secrets=(*settings.secrets, remote_settings.key_file))


@click.command("keygen")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path),
              default=Path("."), show_default=True, help="Where to write the two files.")
def keygen_command(name: str, folder: Path) -> None:
    """Write a CurveZMQ key pair: NAME.key (secret, mode 0600: keep it) and NAME.pub
    (public: hand it over). The organiser makes `referee` for the referee; each remote
    contestant one of their own (or the organiser makes theirs and sends NAME.key)."""
    if not folder.is_dir():
        raise ConfigError(f"--dir {folder}: not a folder")
    secret, public = write_key_pair(name, folder)
    click.echo(f"{secret}: secret key (mode 0600): keep it, never share it")
    click.echo(f"{public}: public key: give it to the other side")


@click.command("connect", context_settings={"ignore_unknown_options": True})
@click.argument("address")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="Your secret key file (NAME.key).")
@click.option("--server-key", "server_key", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="The referee's public key file (referee.pub, from the organiser).")
@click.argument("bot", nargs=-1, required=True, type=click.UNPROCESSED)
def connect_command(address: str, key_file: Path, server_key: Path,
                    bot: tuple[str, ...]) -> None:
    """Play a remote seat: connect to the referee at ADDRESS (tcp://HOST:PORT) and run
    BOT here (after --: a command line, or stdio:COMMAND, as the referee would run it),
    carrying its lines both ways, game after game, until the referee is done."""
    text = bot[0] if len(bot) == 1 else shlex.join(bot)
    command = split_bot_command(text)
    settings = RelaySettings(parse_tcp_address(address, listening=False),
                             read_secret_key(key_file), read_public_key(server_key),
                             command, label=default_label(command))
    relay = Relay(settings, lambda line: click.echo(f"referee connect: {line}", err=True))
    try:
        relay.run()
    except RelayStop as stop:
        raise click.ClickException(str(stop)) from None
    except KeyboardInterrupt as stop:  # SIGTERM comes as one too (referee.cli.main)
        blame = "; the game in play counts it as this bot's crash" if relay.playing else \
            " between games"
        raise Stopped(f"connect: stopped{blame}",
                      TERMINATED if str(stop) == "SIGTERM" else INTERRUPTED) from None
    finally:
        relay.close()
