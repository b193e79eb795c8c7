"""``cpsd-audit-reading --judge URL --judge-model NAME``: qualify a judge model on the graded set.

Every human-graded item (:data:`cpsd_tasks.audit.DEFAULT_GRADED`: a model's recorded answer to a
single-choice question and the letters two graders read in it, ``NONE`` for no answer) is sent to
the judge with the ``choice`` prompt (:mod:`cpsd_tasks.judge.prompts`) and its reply read strictly
(:mod:`cpsd_tasks.judge.reply`). Three readers are scored against the graders with the audit's own
:class:`~cpsd_tasks.audit.ReadingScore` (accuracy, false credit, missed, wrong letters, score
changed): the rules (the plugin's reader), the judge alone, and the rules then the judge for the
items the rules read nothing from (``abstained`` mode of ``cpsd-judge``). Judge vs rules: the
items where both read the same letters (or both nothing), and how they differ otherwise.

Replies are cached (:class:`~cpsd_tasks.judge.client.ReplyCache`), so a second audit of the same
judge sends nothing.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Optional, Sequence

from cpsd_tasks.judge.client import JudgeClient
from cpsd_tasks.judge.prompts import messages
from cpsd_tasks.judge.reply import ANSWER, read_reply
from cpsd_tasks.judge.rules import options_of

READERS = ("rules", "judge", "rules then judge")


def graded_requests(corpus: Any, graded: Sequence[dict]) -> list[tuple[dict, list[dict[str, str]], tuple[str, ...]]]:
    """``[(graded row, messages, option letters)]`` for the graded items whose model is in the corpus."""
    out = []
    for row in graded:
        if row["model"] not in corpus.outputs:
            continue
        doc = corpus.questions[row["id"]]
        options = options_of(doc["options"])
        fields = {"output": corpus.outputs[row["model"]].get(row["id"]), "qtype": "单选",
                  "question": doc["question"], "options": options}
        out.append((row, messages("choice", fields), tuple(options)))
    return out


def judge_graded(corpus: Any, graded: Sequence[dict], client: JudgeClient,
                 progress: bool = True) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]]]:
    """Score the rules, the judge and the cascade against the graded readings, per set and in total.

    Returns:
        ``(scores, agreement)``: ``scores[set or "all"][reader]`` a
        :class:`~cpsd_tasks.audit.ReadingScore` for each of :data:`READERS`;
        ``agreement[set or "all"]`` ``{"n", "agree", "judge_only", "rules_only", "different"}``
        (judge vs rules).

    Raises:
        cpsd_tasks.judge.client.JudgeTransportError: the endpoint failed (replies so far cached).
    """
    from cpsd_tasks.audit import ReadingScore, plugin_reading

    work = graded_requests(corpus, graded)
    judged: list[Optional[str]] = [None] * len(work)

    def on_reply(index: int, text: str, from_cache: bool) -> None:
        reading = read_reply(text, "choice", work[index][2])
        judged[index] = reading.answer if reading.status == ANSWER else None

    client.replies([(msgs, "choice") for _, msgs, _ in work], on_reply, progress=progress)
    scores: dict[str, dict[str, Any]] = defaultdict(lambda: {r: ReadingScore() for r in READERS})
    agreement: dict[str, dict[str, int]] = defaultdict(
        lambda: {"n": 0, "agree": 0, "judge_only": 0, "rules_only": 0, "different": 0})
    for (row, _, _), judge in zip(work, judged):
        rules = plugin_reading(corpus, row["model"], row["id"])
        gold = corpus.questions[row["id"]]["answer"]
        for name in (row["set"], "all"):
            scores[name]["rules"].add(rules, row["answer"], gold)
            scores[name]["judge"].add(judge, row["answer"], gold)
            scores[name]["rules then judge"].add(rules if rules is not None else judge, row["answer"], gold)
            a = agreement[name]
            a["n"] += 1
            kind = ("agree" if rules == judge else "judge_only" if rules is None else
                    "rules_only" if judge is None else "different")
            a[kind] += 1
    return dict(scores), dict(agreement)


def render_judge(scores: dict[str, dict[str, Any]], agreement: dict[str, dict[str, int]], judge_model: str,
                 digest: str) -> str:
    """The judge's audit as Markdown: the three readers against the graders per set, then judge vs rules."""
    lines = [f"## The judge {judge_model} against the human-graded set (prompts {digest})", "",
             "| set | items | reader | accuracy | false credit | missed | wrong letters | score changed |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    names = [*sorted(n for n in scores if n != "all"), "all"] if scores else []
    for name in names:
        for reader in READERS:
            s = scores[name][reader]
            lines.append(f"| {name} | {s.n} | {reader} | {s.accuracy:.4f} | {s.false_credit} | {s.missed} | "
                         f"{s.wrong_letters} | {s.credit_differs} |")
    lines += ["", "| set | items | judge = rules | judge read, rules none | rules read, judge none | "
                  "different letters |", "|---|---:|---:|---:|---:|---:|"]
    for name in names:
        a = agreement[name]
        rate = a["agree"] / a["n"] if a["n"] else float("nan")
        lines.append(f"| {name} | {a['n']} | {a['agree']} ({rate:.4f}) | {a['judge_only']} | {a['rules_only']} | "
                     f"{a['different']} |")
    lines += ["", "*rules then judge*: the rules' reading, and the judge's for the items the rules read nothing "
                  "from (cpsd-judge's abstained mode). A judge reply naming no valid answer is no answer."]
    return "\n".join(lines)
