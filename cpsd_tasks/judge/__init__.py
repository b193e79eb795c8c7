"""Reading by meaning: an optional judge model, after the run, from the sample log.

``cpsd-judge OUT --base_url URL --model NAME`` (:mod:`cpsd_tasks.judge.cli`; also
``cpsd-leaderboard judge``) sends the samples the rules could not read (or, ``--mode all``, every
sample) to a judge model at an OpenAI-compatible endpoint and writes ``judged_<time>.json`` beside
the run. The primary (rule) score never changes; the judged figures are shown beside it.

Modules: :mod:`~cpsd_tasks.judge.prompts` (the Chinese prompts per kind and their digest),
:mod:`~cpsd_tasks.judge.reply` (the strict reader of a reply), :mod:`~cpsd_tasks.judge.client`
(endpoint, cache, concurrency, retries), :mod:`~cpsd_tasks.judge.items` (samples → questions,
judged metrics, agreement), :mod:`~cpsd_tasks.judge.rules` (the one import of the rule readers).
See docs/judge.md.
"""

from cpsd_tasks.judge.prompts import KINDS, NO_ANSWER, PROMPTS_VERSION, messages, prompt_digest, user_message
from cpsd_tasks.judge.reply import JudgeReading, read_reply

__all__ = ["KINDS", "NO_ANSWER", "PROMPTS_VERSION", "messages", "prompt_digest", "user_message", "JudgeReading",
           "read_reply"]
