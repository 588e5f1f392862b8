"""Faults planted for the harness's own tests: a check that misbehaves on command.

``BOOM`` raises, ``HANG`` never returns, ``DIE`` kills the worker, ``ONCE:<path>``
kills it only the first time (the file at <path> remembers), anything else is fine.
"""
from __future__ import annotations

import os
from typing import Any


def check(text: str, set_stage: Any = None) -> dict[str, Any]:
    if set_stage is not None:
        set_stage(1)
    if "BOOM" in text:
        try:
            raise IndexError("planted")
        except IndexError as e:
            return {"outcome": "wrong-exception", "stage": "to_text", "type": "IndexError", "where": "planted",
                    "message": str(e), "signature": "wrong-exception|to_text|IndexError|planted"}
    if "HANG" in text:
        while True:  # busy, as a real endless walk is (the pool counts CPU seconds)
            pass
    if "DIE" in text:
        os._exit(3)
    if text.startswith("ONCE:"):
        marker = text[5:]
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(4)
    return {"outcome": "ok", "late": []}


def check_entry(text: str, set_stage: Any = None) -> dict[str, Any]:
    """The real oracle, with a planted parser bug: any text holding 'ENTRY' is a wrong exception."""
    if "ENTRY" in text:
        return {"outcome": "wrong-exception", "stage": "parse", "type": "ValueError", "where": "planted",
                "message": "planted", "signature": "wrong-exception|parse|ValueError|planted"}
    from .oracle import check as real_check

    return real_check(text, set_stage)
