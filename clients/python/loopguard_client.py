"""loopguard client for Python: guard any agent's tool loop with a running `loopguard serve`.

Standard library only (urllib, json), one file: copy it next to your agent. Python 3.8+.

    from loopguard_client import LoopGuardClient

    run = LoopGuardClient("http://127.0.0.1:4319").run(str(uuid.uuid4()))   # a new id per run
    run.begin_round()                       # before each model call
    decision = run.claim("search", {"q": "refund policy"})
    if decision.allowed:
        result = search(q="refund policy")
        run.outcome(decision, result=result)
    else:
        result = decision.message           # give this to the model instead
    if run.should_stop().stopped:           # after the round's calls
        ...                                  # end the loop; tell the model to answer

The decision API is described in docs/serve-openapi.yaml; docs/serve.md walks through it.
Every method raises LoopGuardError on a 4xx/5xx answer, when the server cannot be reached, or on
an answer that is not the decision API's (code bad_answer: a wrong port, a proxy's page).
Whether to fail open (run the tool anyway) when the server is down is the caller's choice:
catch LoopGuardError around `claim`.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["LoopGuardClient", "GuardedRun", "CallDecision", "RunDecision", "LoopGuardError"]


class LoopGuardError(Exception):
    """The server answered with an error (status, code, message), or could not be reached (status 0)."""

    def __init__(self, status: int, code: str, message: str, field: Optional[str] = None) -> None:
        super().__init__(f"loopguard serve: {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


@dataclass(frozen=True)
class CallDecision:
    """The answer to a claim: `allow` (run it), `refuse` (don't; tell the model `message`) or `stop`."""

    decision: str
    ticket: Optional[str] = None
    kind: Optional[str] = None
    reason: Optional[str] = None
    message: Optional[str] = None
    round: Optional[int] = None

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    @property
    def stopped(self) -> bool:
        return self.decision == "stop"


@dataclass(frozen=True)
class RunDecision:
    """The answer to should_stop: continue (maybe with a nudge for the model) or stop with the message for the model."""

    action: str
    reason: Optional[str] = None
    message: Optional[str] = None
    detail: Optional[str] = None
    nudge: Optional[str] = None
    disabled_tools: List[str] = field(default_factory=list)

    @property
    def stopped(self) -> bool:
        return self.action == "stop"


class LoopGuardClient:
    """A connection to `loopguard serve`. `token`: the server's --auth-token, if it has one."""

    def __init__(self, url: str = "http://127.0.0.1:4319", token: Optional[str] = None, timeout: float = 5.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def run(self, run_id: str) -> "GuardedRun":
        """The run with this id (calls of one agent run share it; pick any unique string)."""
        return GuardedRun(self, run_id)

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        # default=str: a tool result that is not JSON (a datetime, bytes, an object) is sent as its
        # text rather than raising TypeError inside the agent's loop.
        data = None if body is None else json.dumps(body, default=str).encode("utf-8")
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self.token is not None:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        # The documented contract is that every failure is a LoopGuardError, which the agent
        # catches to decide whether to fail open: what a wrong port, a proxy's own page or a
        # replica killed mid-answer sends back (http.client.HTTPException, text that is not a JSON
        # object) must not escape as another exception and crash the agent's loop instead.
        status = 0
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status = response.status
                answer = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            try:
                problem = json.loads(error.read()).get("error", {})
                if not isinstance(problem, dict):
                    problem = {}
            except (ValueError, AttributeError, OSError, http.client.HTTPException):
                problem = {}
            raise LoopGuardError(error.code, str(problem.get("code", "http_error")), str(problem.get("message", error)), problem.get("field")) from None
        except (urllib.error.URLError, OSError) as error:
            raise LoopGuardError(0, "unreachable", f"cannot reach {self.url}: {error}") from None
        except http.client.HTTPException as error:
            raise LoopGuardError(status, "bad_answer", f"{self.url} did not answer as loopguard serve: {type(error).__name__}: {error}") from None
        except ValueError as error:
            raise LoopGuardError(status, "bad_answer", f"{self.url} did not answer JSON (is it loopguard serve?): {error}") from None
        if not isinstance(answer, dict):
            raise LoopGuardError(status, "bad_answer", f"{self.url} answered {type(answer).__name__}, not a JSON object (is it loopguard serve?)")
        return answer

    def require(self, answer: Dict[str, Any], name: str, path: str) -> Any:
        """`answer[name]`, or LoopGuardError when an answer lacks it (not the decision API's answer)."""
        if name not in answer:
            raise LoopGuardError(200, "bad_answer", f"{self.url}{path} answered without {name!r} (is it loopguard serve?)")
        return answer[name]


class GuardedRun:
    """One agent run on the server: begin_round, claim, outcome, should_stop, end."""

    def __init__(self, client: LoopGuardClient, run_id: str) -> None:
        self.client = client
        self.run_id = run_id
        self._path = "/v1/runs/" + urllib.parse.quote(run_id, safe="")

    def begin_round(self, input_tokens: Optional[int] = None, output_tokens: Optional[int] = None) -> int:
        """Call before each model call. Token usage, when known, lets stops report what they saved."""
        usage: Dict[str, int] = {}
        if input_tokens is not None:
            usage["inputTokens"] = input_tokens
        if output_tokens is not None:
            usage["outputTokens"] = output_tokens
        answer = self.client.request("POST", self._path + "/rounds", {"usage": usage} if usage else {})
        return int(self.client.require(answer, "round", self._path + "/rounds"))

    def claim(self, tool: str, arguments: Any = None, call_id: Optional[str] = None, effect: Optional[str] = None) -> CallDecision:
        """Before running a tool call. Run it only if `.allowed`; otherwise give the model `.message`."""
        body: Dict[str, Any] = {"tool": tool, "arguments": arguments}
        if call_id is not None:
            body["callId"] = call_id
        if effect is not None:
            body["effect"] = effect
        # Arguments larger than the server takes (a whole file to write): each large value is sent
        # as its digest, so the call keeps its identity and its small fields (a path, a business
        # key); if that is still too large, the arguments as a whole.
        answer = self._post_fitting(self._path + "/calls", body, "arguments", (64 * 1024, 0))
        return CallDecision(
            decision=str(self.client.require(answer, "decision", self._path + "/calls")),
            ticket=answer.get("ticket"),
            kind=answer.get("kind"),
            reason=answer.get("reason"),
            message=answer.get("message"),
            round=answer.get("round"),
        )

    def outcome(self, decision: CallDecision, result: Any = None, error: Optional[Dict[str, str]] = None) -> str:
        """What an allowed call returned (`result`, any JSON value) or how it failed (`error={"type": ..., "message": ...}`)."""
        if decision.ticket is None:
            raise ValueError("outcome() is for allowed calls: this decision has no ticket")
        path = f"{self._path}/calls/{urllib.parse.quote(decision.ticket, safe='')}/outcome"
        if error is not None:
            return str(self.client.require(self.client.request("POST", path, {"error": error}), "novelty", path))
        # A result larger than the server takes: its digest stands for it, so the same large result
        # again still reads as seen (noise in it is not filtered).
        return str(self.client.require(self._post_fitting(path, {"result": result}, "result", (0,)), "novelty", path))

    def _post_fitting(self, path: str, body: Dict[str, Any], field: str, largest: Tuple[int, ...]) -> Dict[str, Any]:
        """POSTs `body`; while the server answers 413 (over its --max-body-bytes, 4 MiB by default),
        again with `body[field]` digested down to each of `largest` in turn (see `_digested`)."""
        value = body[field]
        for limit in largest:
            try:
                return self.client.request("POST", path, body)
            except LoopGuardError as problem:
                if problem.status != 413:
                    raise
            body[field] = _digested(value, limit)
        return self.client.request("POST", path, body)

    def should_stop(self) -> RunDecision:
        """After a round's calls finished: stop the loop when `.stopped` (give the model `.message`)."""
        answer = self.client.request("POST", self._path + "/should-stop", {})
        return RunDecision(
            action=str(self.client.require(answer, "action", self._path + "/should-stop")),
            reason=answer.get("reason"),
            message=answer.get("message"),
            detail=answer.get("detail"),
            nudge=answer.get("nudge"),
            disabled_tools=list(answer.get("disabledTools", [])),
        )

    def report_state(self, state: Any) -> None:
        """Optional: a digest of what the task moves (files changed, facts gathered), once per round."""
        self.client.request("POST", self._path + "/state", {"state": state})

    def context_compacted(self) -> None:
        """The model's context was compacted, summarised or trimmed: what it read before may be read again."""
        self.client.request("POST", self._path + "/compacted", {})

    def end(self) -> None:
        """The run is over. Idempotent."""
        self.client.request("POST", self._path + "/end", {})


def _digested(value: Any, largest: int) -> Any:
    """`value` with every top-level value of a dict whose JSON is over `largest` bytes replaced by
    its SHA-256 and size; a value that is not a dict (or `largest` 0) is replaced whole."""
    if isinstance(value, dict) and largest > 0:
        return {key: _digested(item, 0) if len(json.dumps(item, default=str)) > largest else item for key, item in value.items()}
    text = json.dumps(value, default=str, sort_keys=True).encode("utf-8")
    return {"sha256": hashlib.sha256(text).hexdigest(), "bytes": len(text)}
