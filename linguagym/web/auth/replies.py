"""What the gate and the sign-in pages both need: the client's address (whose failures count) and the reply to
one that tried too many wrong passwords or tokens."""

from __future__ import annotations

import math

from flask import make_response, request

from linguagym.web.auth import ownership
from linguagym.web.errors import refuse


def client() -> str:
    return request.remote_addr or "unknown"


def too_many(wait: float, *, token: bool = False):
    """429 with Retry-After: this client tried too many wrong passwords (or tokens) lately."""
    what, again = (("wrong passwords", "your username and password") if ownership.accounts_on() and not token
                   else ("wrong access tokens", "the token the server printed"))
    response = make_response(refuse(429, f"Too many {what} from this address.",
                                    f"Wait {math.ceil(wait)} seconds, then try again with {again}."))
    response.headers["Retry-After"] = str(math.ceil(wait))
    return response
