"""`tcp://HOST:PORT` addresses, for `--listen` (the referee's remote seats) and
`referee connect`: parsed strictly, so a typo is one clear error before any socket."""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass

from referee.errors import ConfigError

MAX_ADDRESS_CHARS = 300
# A host name (RFC 1123 labels), an IPv4 address, or an IPv6 one in brackets; `*` (every
# interface) only where one listens.
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*"
                   r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_IPV6 = re.compile(r"\[[0-9A-Fa-f:.]{2,45}\]")
_ADDRESS = re.compile(r"tcp://(?P<host>[^/]+):(?P<port>[0-9]{1,5})")


@dataclass(frozen=True)
class TcpAddress:
    """A checked `tcp://HOST:PORT`; port 0 (listen only): any free port."""

    host: str
    port: int

    @property
    def endpoint(self) -> str:
        return f"tcp://{self.host}:{self.port}"


def parse_tcp_address(text: str, listening: bool) -> TcpAddress:
    """`tcp://HOST:PORT`, or ConfigError saying what is wrong. `listening`: `*` (every
    interface) and port 0 (any free port) are allowed."""
    shown = text[:MAX_ADDRESS_CHARS].encode("ascii", "backslashreplace").decode("ascii")
    match = _ADDRESS.fullmatch(text) if len(text) <= MAX_ADDRESS_CHARS else None
    if match is None:
        raise ConfigError(f"address {shown!r}: write tcp://HOST:PORT, e.g. "
                          f"tcp://{'0.0.0.0' if listening else '203.0.113.5'}:5555")
    host, port = match.group("host"), int(match.group("port"))
    if not (_HOST.fullmatch(host) or _IPV6.fullmatch(host)
            or (listening and host == "*")):
        raise ConfigError(f"address {shown!r}: {host!r} is not a host name or IP address")
    if port > 65535 or (port == 0 and not listening):
        raise ConfigError(f"address {shown!r}: the port must be 1 to 65535")
    return TcpAddress(host, port)


def check_listenable(address: TcpAddress) -> None:
    """ConfigError now, before any game, where nothing can listen on `address` (a port
    in use, an address not of this machine): a tournament's worker listens later."""
    host = "" if address.host == "*" else address.host.strip("[]")
    try:
        infos = socket.getaddrinfo(host or None, address.port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        family, kind, proto, _, where = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as libzmq binds
            probe.bind(where)
    except OSError as error:
        raise ConfigError(f"--listen {address.endpoint}: cannot listen there: "
                          f"{error.strerror or error}") from None
