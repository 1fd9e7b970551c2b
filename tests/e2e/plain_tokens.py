"""The plain server's token endpoint and who its API lets in, as a shape says (issue 28, point 4).
Stdlib only, sharing no code with `app/`.

- client credentials in the form body or a Basic header (`client_auth` "either"), or only in a
  Basic header ("basic": form credentials answer 401 `invalid_client`);
- tokens live `lifetime` seconds, said in `expires_in` or not; a refresh token comes with them
  when the shape refreshes (`grant_type=refresh_token` then works; otherwise it answers 400);
- `token_answers`: answers the endpoint gives first, in order, before it issues tokens again —
  e.g. a 429 with `Retry-After: 1`, then a 403 with an empty body (throttling);
- `revoke_after`: once the API has let in that many requests, every token — old or newly issued —
  is refused with 401 (the show's credentials stopped opening the API while tokens still come).

Counters for the test: `token_requests`, `let_in` (API requests let in), `refused` (401s).
"""

from __future__ import annotations

import base64
import random
import string
import threading
import time
from collections import deque

from tests.e2e.plain_answers import Answer, slow_down
from tests.e2e.shape import Shape

SHOW_ID = "PLAIN-SHOW"
SECRET = "plain-secret"


class SignIn:
    """Tokens of one show; every method holds the lock."""

    def __init__(self, shape: Shape, rng: random.Random) -> None:
        self.lock = threading.RLock()
        self.shape = shape
        self.lifetime = shape.token_life
        self.rng = rng
        self.tokens: dict[str, float] = {}  # access token → when it expires (monotonic)
        self.refresh_tokens: set[str] = set()
        self.token_answers: deque[Answer] = deque([slow_down(shape)] if shape.token_throttled
                                                  else [])  # fmt: skip
        self.revoke_after: int | None = None
        self.token_requests = self.let_in = self.refused = 0

    def issue(self, form: dict[str, str], authorization: str) -> Answer:
        with self.lock:
            self.token_requests += 1
            if self.token_answers:
                return self.token_answers.popleft()
            grant = form.get("grant_type")
            if grant == "refresh_token" and self.shape.refresh:
                if form.get("refresh_token") not in self.refresh_tokens:
                    return Answer(400, {"error": "invalid_grant"})
                return self._token()
            if grant != "client_credentials":
                return Answer(400, {"error": "unsupported_grant_type"})
            if _credentials(form, authorization, self.shape.client_auth) != (SHOW_ID, SECRET):
                return Answer(401, {"error": "invalid_client"})
            return self._token()

    def _token(self) -> Answer:
        token = self._word()
        self.tokens[token] = time.monotonic() + self.lifetime
        body: dict[str, object] = {"access_token": token, "token_type": "bearer"}
        if self.shape.expires_in:
            body["expires_in"] = int(self.lifetime)
        if self.shape.refresh:
            body["refresh_token"] = refresh = self._word()
            self.refresh_tokens.add(refresh)
        return Answer(200, body)

    def _word(self) -> str:
        return "".join(self.rng.choice(string.ascii_letters) for _ in range(24))

    def authorized(self, authorization: str) -> bool:
        scheme, _, token = authorization.partition(" ")
        with self.lock:
            revoked = self.revoke_after is not None and self.let_in >= self.revoke_after
            ok = scheme.lower() == "bearer" and self.tokens.get(token, 0) > time.monotonic()
            if ok and not revoked:
                self.let_in += 1
                return True
            self.refused += 1
            return False


def _credentials(form: dict[str, str], authorization: str, accepted: str) -> tuple[str, str]:
    if authorization.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(authorization[6:].strip()).decode()
        except ValueError:
            decoded = ":"
        client_id, _, secret = decoded.partition(":")
        return client_id, secret
    if accepted == "basic":
        return "", ""  # form credentials are not read
    return form.get("client_id", ""), form.get("client_secret", "")
