"""The model's answers about rules code could not read, remembered per question.

The question is the whole prompt, and the model: TIC's prompt with the rules, the event as
the model sees it (kind, who, what, when), the time and the rule lines. Decoding is greedy,
so the same question gets the same answer: remembering it is sound, and an event decided
again (the same message in two accounts, ``tic eval`` run twice) costs no model call. A key
holding less than the whole prompt (the line and the event kind alone) would not be sound:
the answer depends on what the event says."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict

from engine.llm.base import Message

MAX_VERDICTS = 4096


class VerdictCache:
    def __init__(self, size: int = MAX_VERDICTS):
        self.size = size
        self._answers: OrderedDict[str, str] = OrderedDict()
        self.hits = 0

    @staticmethod
    def _key(model: str, messages: list[Message]) -> str:
        text = json.dumps([model, messages], ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, model: str, messages: list[Message]) -> str | None:
        """The answer ``model`` gave to exactly these messages, if remembered."""
        key = self._key(model, messages)
        answer = self._answers.get(key)
        if answer is not None:
            self._answers.move_to_end(key)
            self.hits += 1
        return answer

    def put(self, model: str, messages: list[Message], answer: str) -> None:
        """Remember an answer that could be read (the oldest goes past ``size``)."""
        self._answers[self._key(model, messages)] = answer
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
