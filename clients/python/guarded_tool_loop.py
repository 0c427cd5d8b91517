"""A plain Python tool loop guarded by `loopguard serve` (no agent framework, no model).

The "model" here is a script that keeps asking for the same search, as a looping agent does.
loopguard refuses the repeat once its result is confirmed unchanged, then stops the run.

    loopguard serve &                      # in another terminal
    python3 clients/python/guarded_tool_loop.py [http://127.0.0.1:4319]
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any, Dict, List

from loopguard_client import LoopGuardClient


def search(q: str) -> Dict[str, Any]:
    """The tool: always the same two documents for this query."""
    return {"hits": ["refund-policy.md", "faq.md"], "q": q}


def model_turn(round_number: int) -> List[Dict[str, Any]]:
    """The looping model: one search per turn, the same one every time."""
    return [{"tool": "search", "arguments": {"q": "refund policy"}}]


def main(url: str) -> int:
    run = LoopGuardClient(url, token=os.environ.get("LOOPGUARD_SERVE_TOKEN")).run(f"python-example-{uuid.uuid4()}")
    for round_number in range(1, 21):
        run.begin_round()
        for call in model_turn(round_number):
            decision = run.claim(call["tool"], call["arguments"])
            if decision.allowed:
                run.outcome(decision, result=search(**call["arguments"]))
                print(f"round {round_number}: {call['tool']} ran")
            else:
                print(f"round {round_number}: {call['tool']} {decision.decision} ({decision.reason})")
        verdict = run.should_stop()
        if verdict.stopped:
            print(f"stopped at round {round_number}: {verdict.reason}")
            print(f"message for the model: {verdict.message}")
            run.end()
            return 0
    run.end()
    print("never stopped")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:4319"))
