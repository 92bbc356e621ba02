"""The secret that hides a tournament's deals from its bots.

Each results db gets a random secret when it is created. Every deal's seed is keyed with
it (fixtures.deal_seed), so the public tournament seed, which bots can know (it is in the
tournament file, or 0), predicts no hand; resuming from the db reuses it, so a resumed
tournament plays the very deals of an uninterrupted one.
"""

from __future__ import annotations

import secrets

from referee.errors import ConfigError

SECRET_BYTES = 32
META_KEY = "deal_secret"  # its key in the results db's meta table, as hex


def new_secret() -> bytes:
    """A fresh random secret for a new tournament."""
    return secrets.token_bytes(SECRET_BYTES)


def secret_to_text(secret: bytes) -> str:
    """The secret as stored in the meta table."""
    return secret.hex()


def secret_from_text(text: str) -> bytes:
    """The secret back from the meta table; ConfigError if it is not one."""
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) != SECRET_BYTES:
        raise ConfigError(f"the stored deal secret is not {SECRET_BYTES} bytes of hex")
    return secret
