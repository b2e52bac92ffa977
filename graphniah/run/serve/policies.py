r"""The keyless answer policies of the local endpoints: oracle, random and always-NO.

What a local endpoint answers (served over HTTP by :mod:`graphniah.run.serve.server`):

- ``oracle``: the text-only solver (:func:`graphniah.text.textcheck.solve`) reads the context back
  into a citation graph and answers; when the text does not determine an answer the reply has no
  ``\answer{}`` block (and scores as "no answer");
- both oracle and random answer in the answer format of the template set the prompt is worded in
  (told by its system message: no two sets share one, :func:`graphniah.text.prompts.load_all_templates`): an ``Answer:``
  line, ``<answer>`` tags, a bare reply or ``\answer{}``, options labelled as the set labels them
  (:func:`graphniah.text.normalize.write_answer`);
- ``random``: a uniform draw from the task's answer set (YES/NO; the option letters the question
  lists; for counting, the benchmark's counting answer set from :class:`graphniah.stats.CountingAnswers`;
  for a list question, each paper the context names kept with probability 1/2), from a generator of the
  server's seed, the prompt's hash and how often the server has seen that prompt, so a run's answers do
  not depend on the order concurrent requests arrive in;
- ``always-no``: ``\answer{NO}`` whatever the question.

``GET /v1/models`` lists the policy (``local-<policy>`` unless named otherwise) as the one model.
The oracle also returns a short reasoning text, so a client's handling of reasoning output is
exercised without a real reasoning model.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from graphniah.errors import GraphNIAHError
from graphniah.run.serve.server import ROLES, LocalServer, Rejection, ServerApp, invalid_request
from graphniah.seeds import Stream, generator

if TYPE_CHECKING:
    import numpy as np

    from graphniah.formats import Render
    from graphniah.formats.examples import Message
    from graphniah.text import PromptSet

Policy = Literal["oracle", "random", "always-no"]
POLICIES: tuple[Policy, ...] = ("oracle", "random", "always-no")


class PolicyApp(ServerApp):
    """A policy as the server's app: the answer to normalised messages (thread-safe)."""

    def __init__(self, policy: Policy, *, seed: int = 0, model_name: str | None = None, prompts: str | Path | None = None):
        if policy not in POLICIES:
            raise GraphNIAHError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
        super().__init__(policy, model_name or f"local-{policy}")
        self.policy = policy
        self._lock = threading.Lock()
        self._seed = seed
        self._seen: dict[int, int] = {}  # prompt hash -> requests of it so far (a repeated prompt draws anew)
        self._prompts: PromptSet | None = None
        self._prompts_dir = prompts  # the oracle reads prompts rendered from these templates
        self._by_system: dict[str, PromptSet] = {}  # system message -> the template set it belongs to

    # -- answering ------------------------------------------------------------------------------

    def _prompt_set(self, msgs: Sequence[Message] = ()) -> PromptSet:
        """The template set of the messages (by their system message; the default set without one)."""
        # Loaded once, under the lock, and published whole: a request served meanwhile on another
        # thread must not see the default set without the others (it would answer in the wrong format).
        with self._lock:
            if self._prompts is None:
                from graphniah.text.prompts import load_all_templates, load_prompts

                prompts = load_prompts(self._prompts_dir)
                by_system: dict[str, PromptSet] = {}
                for pr in load_all_templates(None, prompts.directory).values():
                    by_system.update(dict.fromkeys(pr.system.values(), pr))
                self._by_system, self._prompts = by_system, prompts
            default = self._prompts
        return self._by_system.get(msgs[0].content, default) if msgs else default

    def _messages(self, messages: Sequence[Mapping[str, Any]]) -> tuple[Message, ...]:
        from graphniah.formats.examples import Message

        try:
            return tuple(Message(role=ROLES.get(m["role"], m["role"]), content=m["content"]) for m in messages)
        except (KeyError, TypeError, ValueError) as err:
            raise invalid_request(f"messages must be a list of {{role, content}} text messages ({err})") from None

    def answer(self, messages: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
        """``(content, reasoning)`` of the policy's reply."""
        if self.policy == "always-no":
            return "\\answer{NO}", None
        from graphniah.text import Undetermined, rendering_of, solve, split_messages
        from graphniah.text.normalize import write_answer

        msgs = self._messages(messages)
        pr = self._prompt_set(msgs)
        if self.policy == "oracle":
            try:
                ans = solve(msgs, pr)
            except Undetermined as err:
                return f"The context does not determine the answer ({err}).", "text-only solver: undetermined"
            task = split_messages(msgs, pr)[0]
            found = f"reaches {ans.count(chr(10)) + 1} papers" if task == "list" else f"gives {ans}"  # a list: one title a line
            said = "" if pr.answer.style == "bare" else f"Reading the citation blocks back into a graph and searching it {found}.\n"
            return said + write_answer(task, ans, pr.answer), "text-only solver: breadth-first search over the parsed citations"
        try:
            task, question, context = split_messages(msgs, pr)
            if task == "list":
                return self._random_list(context, pr, self._rng(msgs)), None
            answers = self._answer_set(task, question, rendering_of(msgs, pr), pr)
        except Undetermined as err:
            raise Rejection(400, f"cannot tell the task from the messages: {err}", "unknown_task", "invalid_request_error") from None
        pick = answers[int(self._rng(msgs).integers(len(answers)))]
        return write_answer(task, pick, pr.answer), None

    def _rng(self, msgs: Sequence[Message]) -> np.random.Generator:
        """The generator of one request: of the seed, the prompt and its occurrence, not of arrival order."""
        text = json.dumps([[m.role, m.content] for m in msgs]).encode()
        prompt = int.from_bytes(hashlib.sha256(text).digest()[:8], "big")
        with self._lock:
            occurrence = self._seen.get(prompt, 0)
            self._seen[prompt] = occurrence + 1
        return generator(Stream.POLICY, self._seed, prompt, occurrence)

    def _random_list(self, context: str, pr: PromptSet, rng: np.random.Generator) -> str:
        r"""A random list answer: each paper the context names, kept with probability 1/2 (the answer may be empty)."""
        from graphniah.text import parse_context
        from graphniah.text.normalize import write_answer

        titles = [node.title for node in parse_context(context, pr).nodes]
        keep = rng.random(len(titles)) < 0.5
        return write_answer("list", "\n".join(t for t, k in zip(titles, keep, strict=True) if k), pr.answer)

    def _answer_set(self, task: str, question: str, render: Render, pr: PromptSet) -> list[str]:
        from graphniah.formats.examples import option_letters
        from graphniah.stats import CountingAnswers
        from graphniah.text import parse_question

        if task == "yesno":
            return ["YES", "NO"]
        if task == "mc":
            q = parse_question("mc", question, pr, render=render)
            return list(option_letters(len(q.targets), q.none_option))
        return [str(a) for a in CountingAnswers().answers]


class PolicyServer(LocalServer):
    """A running policy server on 127.0.0.1 (a background thread); use as a context manager.

    ``port=0`` picks a free port; ``url`` is the OpenAI-style base URL (``http://127.0.0.1:P/v1``).
    """

    app: PolicyApp

    def __init__(self, policy: Policy, *, port: int = 0, host: str = "127.0.0.1", seed: int = 0,
                 model_name: str | None = None, prompts: str | Path | None = None):
        super().__init__(self.make_app(policy, seed=seed, model_name=model_name, prompts=prompts), port=port, host=host)

    def make_app(self, policy: Policy, *, seed: int, model_name: str | None, prompts: str | Path | None) -> PolicyApp:
        """The app that answers the requests (a subclass returns its own :class:`PolicyApp`)."""
        return PolicyApp(policy, seed=seed, model_name=model_name, prompts=prompts)
