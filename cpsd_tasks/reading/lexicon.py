"""The reading lexicon: every word list the readers share, each spelled once.

* negation — :data:`NEGATIONS` (a mention right after one names the opposite label or none),
  :data:`NAMES_NOTHING_BEFORE`, :data:`NAMES_NOTHING_AFTER` (a mention inside a question or another
  word names nothing);
* the 判断 label sets' surface forms — :data:`READING_JUDGE_ALIASES`, :data:`READING_JUDGE_SHORT`
  (case_reading 是/否/未知), :data:`EXAM_TF_ALIASES`, :data:`EXAM_TF_SHORT` (police_exam 正确/错误).

Source: SPEC.md §4.1, §4.4 and the project's audit of real outputs (README "Answer reading").
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

#: Short forms of the police_exam 判断 answers (SPEC §4.4: 对/错/√/×/是/否). Being single
#: characters that occur in any sentence, they count only as the whole answer or as its first
#: clause ("对。因为……"), never inside an explanation ("对于本题……").
EXAM_TF_SHORT: dict[str, str] = {
    "对": "正确", "是": "正确", "是的": "正确", "√": "正确", "✓": "正确", "✔": "正确",
    "True": "正确", "true": "正确", "TRUE": "正确", "T": "正确",
    "错": "错误", "否": "错误", "×": "错误", "✗": "错误", "✘": "错误",
    "False": "错误", "false": "错误", "FALSE": "错误", "F": "错误",
}
