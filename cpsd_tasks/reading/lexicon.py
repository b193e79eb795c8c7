"""The reading lexicon: every word list the readers share, each spelled once.

* negation — :data:`NEGATIONS` (a mention right after one names the opposite label or none),
  :data:`NAMES_NOTHING_BEFORE`, :data:`NAMES_NOTHING_AFTER` (a mention inside a question or another
  word names nothing);
* the 判断 label sets' surface forms — :data:`READING_JUDGE_ALIASES`, :data:`READING_JUDGE_SHORT`
  (case_reading 是/否/未知), :data:`EXAM_TF_ALIASES`, :data:`EXAM_TF_SHORT` (police_exam 正确/错误);
* answer heads — :data:`ANSWER_HEADS` (every head word) and, side by side, the subset each reader
  accepts (:data:`BRACKETED_HEADS`, :data:`PREFIX_HEADS`, :data:`LABEL_HEADS`, …);
* hedges — :data:`SUPPOSITIONS`, :data:`DOUBTS`, :data:`VIEWS`, from which the readers' hedge patterns
  are built (:mod:`cpsd_tasks.reading.patterns`).

The option-letter reader's own declaration heads (:data:`cpsd_tasks.reading.letter_patterns.DECLARATION`,
with its verbs 故选/应选/我选… and English forms) and the verdict words are regular expressions, not word
lists, and stay beside their patterns.

Source: docs/metrics.md (classification, police exam) and the project's audit of real outputs
(docs/answer_reading.md).
"""

from __future__ import annotations

#: Words that, right before a mention of a label, make it name no label (in a two-label task: the
#: other label): "不是诈骗", "并非谣言", "非诈骗", "不太可能是诈骗".
NEGATIONS: tuple[str, ...] = ("不是", "并非", "不属于", "不构成", "不算", "不为", "而非", "非", "不",
                              "不可能是", "不太可能是", "不像是", "不像", "不应是", "不应该是", "谈不上",
                              "没有", "未发现", "未见", "不存在", "不太")
#: A mention right after one of these, or right before 与否, is part of a question or of another
#: word and names no label: "是否是诈骗", "无法判断是否诈骗", "正确与否", "反诈骗宣传".
NAMES_NOTHING_BEFORE: tuple[str, ...] = ("是否", "是否是", "是否为", "是否属于", "是不是", "能否", "可否",
                                         "有无", "反", "防")
NAMES_NOTHING_AFTER: tuple[str, ...] = ("与否",)

#: Extra surface forms of the case_reading 判断 answers, read anywhere in the answer.
READING_JUDGE_ALIASES: dict[str, str] = {
    "不是": "否",
    **{form: "未知" for form in (
        "无法确定", "不能确定", "无法判断", "不能判断", "无法得知", "无从得知", "不得而知", "无法知道",
        "不确定", "未提及", "没有提及", "未提到", "没有提到", "未说明", "没有说明", "未载明",
    )},
}

#: Short forms of the case_reading 判断 answers, read only as the whole answer or its first clause
#: ("没有。材料显示……"), never inside an explanation.
READING_JUDGE_SHORT: dict[str, str] = {"是的": "是", "对": "是", "有": "是", "没有": "否", "不能": "否",
                                       "不会": "否", "不对": "否"}

#: Extra surface forms of the police_exam 判断 answers, read anywhere in the answer.
EXAM_TF_ALIASES: dict[str, str] = {"不正确": "错误", "不完全正确": "错误", "不完全对": "错误", "不对": "错误",
                                   "有误": "错误", "无误": "正确", "是对的": "正确", "是错的": "错误"}

#: Short forms of the police_exam 判断 answers (docs/metrics.md#police-exam: 对/错/√/×/是/否). Being single
#: characters that occur in any sentence, they count only as the whole answer or as its first
#: clause ("对。因为……"), never inside an explanation ("对于本题……").
EXAM_TF_SHORT: dict[str, str] = {
    "对": "正确", "是": "正确", "是的": "正确", "√": "正确", "✓": "正确", "✔": "正确",
    "True": "正确", "true": "正确", "TRUE": "正确", "T": "正确",
    "错": "错误", "否": "错误", "×": "错误", "✗": "错误", "✘": "错误",
    "False": "错误", "false": "错误", "FALSE": "错误", "F": "错误",
}


# --------------------------------------------------------------------------- answer heads

#: Every word that heads an answer declaration ("答案：B", "结论：谣言", "[正确答案]B"), spelled once. The
#: readers each accept a subset (below, side by side, so that their differences are visible); a
#: pattern takes its subset through :func:`cpsd_tasks.reading.patterns.one_of`.
ANSWER_HEADS: tuple[str, ...] = ("最终答案", "正确答案", "参考答案", "标准答案", "答案", "正确选项", "解决方案", "结论",
                                 "判断结果", "分类结果", "识别结果", "结果", "分类", "判断", "类别", "标签", "回答", "答",
                                 "answer", "final answer")


def _heads(*words: str) -> tuple[str, ...]:
    """A subset of :data:`ANSWER_HEADS` (raises at import when a word is not one of them)."""
    unknown = [word for word in words if word not in ANSWER_HEADS]
    if unknown:
        raise ValueError(f"not in ANSWER_HEADS: {unknown}")
    return words


#: Bracketed declarations made plain (``[正确答案]B`` → ``正确答案：B``; :mod:`cpsd_tasks.reading.prepare`).
BRACKETED_HEADS = _heads("正确答案", "最终答案", "参考答案", "标准答案", "答案", "正确选项", "答")
#: Prefixes stripped from the front of an answer by :func:`cpsd_tasks.reading.normalize.normalize`.
PREFIX_HEADS = _heads("最终答案", "正确答案", "答案", "回答", "结论", "结果", "分类结果", "分类", "判断结果", "判断",
                      "answer", "final answer")
#: Heads of a declared label (:mod:`cpsd_tasks.reading.labels`; 回答/答 need their colon there).
LABEL_HEADS = _heads("最终答案", "正确答案", "答案", "结论", "判断结果", "分类结果", "识别结果", "类别", "标签")
#: Heads of a declared 判断 label (:mod:`cpsd_tasks.reading.judgements`).
JUDGEMENT_HEADS = _heads("最终答案", "正确答案", "参考答案", "答案", "结论", "判断结果", "回答")
#: Heads of a declared option text (rule ``declared_text``).
TEXT_HEADS = _heads("最终答案", "正确答案", "参考答案", "答案", "正确选项", "解决方案")
#: Heads of an undecided last declaration ("正确答案: 无法判断").
UNDECIDED_HEADS = _heads("正确答案", "最终答案", "答案")
#: Heads of a bare declaration turn ("[正确答案]B") and of a numbered one ("17. 答案：A").
BARE_HEADS = _heads("正确答案", "答案", "最终答案")
NUMBERED_HEADS = _heads("正确答案", "答案")
#: Heads before a verdict on the line after an option's own line ("正确答案: 正确。").
VERDICT_LINE_HEADS = _heads("正确答案", "答案", "判断", "结论")
#: Heads of an IE answer's declaration ("答案：[…]", "final answer:"; :mod:`cpsd_tasks.reading.ie_parse`).
IE_HEADS = _heads("最终答案", "答案", "final answer", "answer")

# --------------------------------------------------------------------------- hedges

#: Suppositions ("如果是A…"), doubts ("可能是A") and someone's view ("有人认为…"): what follows is not the
#: model's own answer. Each reader's hedge list is built from these (below); where it leaves one out
#: (``without``), the reader's cases pin that.
SUPPOSITIONS: tuple[str, ...] = ("如果", "假如", "假设", "若")
DOUBTS: tuple[str, ...] = ("可能", "也许", "或许")
VIEWS: tuple[str, ...] = ("认为", "观点", "有人")
