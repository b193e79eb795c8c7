"""Normalisation, <think> removal, refusals and the fuzzy/strict label readers (docs/metrics.md#normalisation
and #classification)."""

import pytest

from cpsd_tasks.reading import is_refusal, normalize, read_label, strict_label, strip_think

SENT = ("积极", "消极", "中性")
SENT_ALIASES = {"正面": "积极", "负面": "消极", "中立": "中性"}
RUMOR = ("谣言", "非谣言")
FRAUD = ("诈骗", "正常")
INCIDENT = ("盗窃", "电信诈骗", "交通事故", "故意伤害")


@pytest.mark.parametrize("raw, expected", [
    ("<think>想一想</think>积极", "积极"),
    ("<THINK>a\nb</THINK>\n\n消极", "\n\n消极"),
    ("<think>还在想，没有结束", ""),
    ("前面的推理</think>中性", "中性"),
    ("<think>x</think>y</think>z", "z"),
    (None, ""),
    ("", ""),
    ("没有思考标签", "没有思考标签"),
])
def test_strip_think(raw, expected):
    assert strip_think(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("积极", "积极"),
    ("  积极。\n", "积极"),
    ("**消极**", "消极"),
    ("## 中性", "中性"),
    ("答案：中性", "中性"),
    ("答：“诈骗”。", "诈骗"),
    ("Ａｎｓｗｅｒ：积极", "积极"),          # full-width letters and colon -> NFKC
    ("\u3000「非谣言」\u3000", "非谣言"),      # ideographic spaces, CJK corner quotes
    ("最终答案是：**正常**", "正常"),
    ("答案：ＡＣ", "AC"),
    ("<think>…</think>答案：盗窃", "盗窃"),
    ("这是一条诈骗短信", "这是一条诈骗短信"),  # inner text untouched
    (None, ""),
])
def test_normalize(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.parametrize("raw, labels, aliases, expected", [
    ("积极", SENT, None, "积极"),
    ("这条微博的情感倾向是积极的。", SENT, None, "积极"),
    ("情感：负面", SENT, SENT_ALIASES, "消极"),
    ("既有积极的一面，也有消极的一面", SENT, None, None),     # two different labels
    ("积极" * 5000, SENT, None, "积极"),                      # 10,000 characters, one label
    ("啊" * 10000 + "中性", SENT, None, "中性"),
    ("不是消极", SENT, None, None),                           # negation in a 3-label task names nothing
    ("非谣言", RUMOR, None, "非谣言"),                        # longest label wins
    ("这条帖子属于非谣言。", RUMOR, None, "非谣言"),
    ("这是谣言", RUMOR, None, "谣言"),
    ("这不是谣言", RUMOR, None, "非谣言"),                    # negation names the other label
    ("并非谣言", RUMOR, None, "非谣言"),
    ("不是诈骗", FRAUD, None, "正常"),
    ("非诈骗", FRAUD, None, "正常"),
    ("这条短信不正常", FRAUD, None, "诈骗"),
    ("这是诈骗短信，不是正常短信", FRAUD, None, "诈骗"),
    ("诈骗还是正常无法确定", FRAUD, None, None),
    ("不是盗窃，是故意伤害", INCIDENT, None, "故意伤害"),
    ("电信诈骗", INCIDENT, None, "电信诈骗"),
    ("诈骗", INCIDENT, None, None),                           # not a label of this task
    ("属于交通肇事", INCIDENT, {"交通肇事": "交通事故"}, "交通事故"),
    ("抱歉，我无法回答。", FRAUD, None, None),
    ("", FRAUD, None, None),
    (None, FRAUD, None, None),
    ("<think>可能是诈骗</think>正常", FRAUD, None, "正常"),
    ("<think>可能是诈骗", FRAUD, None, None),
])
def test_read_label(raw, labels, aliases, expected):
    assert read_label(raw, labels, aliases) == expected


@pytest.mark.parametrize("raw, expected", [
    ("诈骗", "诈骗"), ("**诈骗**。", "诈骗"), ("答案：正常", "正常"),
    ("诈骗短信", None), ("这是诈骗", None), ("", None), (None, None),
])
def test_strict_label(raw, expected):
    assert strict_label(raw, FRAUD) == expected


@pytest.mark.parametrize("raw, expected", [
    ("抱歉，我无法回答这个问题。", True),
    ("对不起，该内容涉及敏感信息。", True),
    ("作为一个AI语言模型，我不能判断。", True),
    ("I'm sorry, but I cannot help with that.", True),
    ("", True), (None, True), ("   ", True), ("<think>未结束", True),
    ("诈骗", False), ("这条短信是正常的", False),
])
def test_is_refusal(raw, expected):
    assert is_refusal(raw) is expected


def test_lone_surrogates_become_replacement_characters():
    assert strip_think("诈\ud800骗") == "诈\ufffd骗"
    assert normalize("\udfff诈骗\ud800") == "\ufffd诈骗\ufffd"
    assert read_label("这是诈骗\ud800", FRAUD) == "诈骗"


@pytest.mark.parametrize("raw, labels, expected", [
    ("抱歉，我无法判断这是否是诈骗。", FRAUD, None),        # a question about a label names nothing
    ("无法判断是否诈骗", FRAUD, None),
    ("这条短信不太可能是诈骗", FRAUD, "正常"),
    ("这是反诈骗宣传短信，正常", FRAUD, "正常"),              # 反诈骗 is not the label 诈骗
    ("这是防诈骗提醒，属于正常短信", FRAUD, "正常"),
    ("非 谣言", RUMOR, "非谣言"),                            # whitespace inside a label
    ("正确与否取决于具体情况", ("正确", "错误"), None),
    ("```json\n诈骗\n```", FRAUD, "诈骗"),
    ("<b>谣言</b>", RUMOR, "谣言"),
])
def test_read_label_questions_negations_and_wrappers(raw, labels, expected):
    assert read_label(raw, labels) == expected


INCIDENT_TEXT = "报警人称：昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场，行人腿部受伤。"


@pytest.mark.parametrize("raw, expected", [
    # the label only inside a passage copied from the classified text: nothing named
    ("报警人称：昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场。", None),
    ("昨晚在小区门口发生交通事故，一辆电动车撞倒", None),
    # the model's own words around it, or the label alone: named
    ("该警情属于交通事故。", "交通事故"),
    ("交通事故", "交通事故"),
    ("[类别]交通事故<eoa>", "交通事故"),
    # copied, then committed in its own sentence: the own mention names it
    ("昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场。因此类别为交通事故", "交通事故"),
    # copied on one side only (the model's own words after it): named
    ("小区门口发生交通事故，警方已到场", "交通事故"),
    # copied mention of one label beside the model's own other label: the own one
    ("昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场。我认为是故意伤害", "故意伤害"),
    # fenced label alone: named; full-width noise before a copied passage: still copied; empty, refusal: nothing
    ("```\n交通事故\n```", "交通事故"),
    ("ＡＢ报警人称：昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场。", None),
    ("", None),
    ("抱歉，我无法判断。", None),
])
def test_read_label_skips_mentions_copied_from_the_classified_text(raw, expected):
    assert read_label(raw, INCIDENT, source=INCIDENT_TEXT) == expected


def test_read_label_without_source_reads_copied_mentions():
    assert read_label("报警人称：昨晚在小区门口发生交通事故，一辆电动车撞倒行人后逃离现场。", INCIDENT) == "交通事故"


@pytest.mark.parametrize("raw, expected", [
    ("```json\n诈骗\n```", "诈骗"), ("```\n正常\n```", "正常"), ("<b>诈骗</b>", "诈骗"),
    ("<p>答案：<strong>谣言</strong></p>", "谣言"), ("诈骗\u200b", "诈骗"), ("\ufeff诈骗", "诈骗"),
    ("<B>", "B"),                                            # an option letter, not an HTML tag
])
def test_normalize_fences_html_zero_width(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.slow
def test_strip_think_is_linear_on_many_unclosed_tags():
    from growth import assert_linear

    assert strip_think("<think>" * 15000) == ""
    assert normalize("<think>" * 15000 + "x") == ""
    assert_linear(strip_think, lambda n: "<think>" * n, 4000, what="strip_think")
    assert_linear(normalize, lambda n: "<think>" * n + "x", 4000, what="normalize")


DISPUTE = ("诉讼主体", "租金情况", "利息", "本金争议", "责任认定", "违约", "合同解除")
CONSULT = ("婚姻家庭", "劳动纠纷", "交通事故", "债权债务", "合同纠纷", "房产纠纷", "侵权")


@pytest.mark.parametrize("raw, labels, expected", [
    # a recital of the label list (four or more, in the list's order, one after another) names none
    ("[类别]劳动纠纷<eoa>\n\n[类别]债权债务<eoa>\n\n[类别]合同纠纷<eoa>\n\n[类别]房产纠纷<eoa>", CONSULT, None),
    ("婚姻家庭<eoa>\n<eoa>\n:劳动纠纷<eoa>\n:交通事故<eoa>\n:债权债务<eoa>", CONSULT, None),
    ("1. 诉讼主体\n2. 租金情况\n3. 利息\n4. 本金争议\n5. 答案", DISPUTE, None),
    # the list copied, then one label picked from it in a declaration or the asked slot: that one
    ("类别包括：婚姻家庭、劳动纠纷、交通事故、债权债务、合同纠纷。\n[类别]交通事故<eoa>", CONSULT, "交通事故"),
    ("争议焦点类别为：诉讼主体、租金情况、利息、本金争议、违约。其中，争议焦点类别为违约，因为…", DISPUTE, "违约"),
    # … but a label left only as a mention, or two picked, or the head of a list: none
    ("争议焦点类别为：诉讼主体、租金情况、利息、本金争议。其中上诉人和被上诉人作为诉讼主体", DISPUTE, None),
    ("类别：合同纠纷、侵权、婚姻家庭、劳动纠纷、交通事故、债权债务", CONSULT, None),
    # the list written over and over: a label between two copies is no pick
    ("[类别]劳动纠纷\n[类别]交通事故\n[类别]债权债务\n[类别]合同纠纷\n[类别]婚姻家庭\n[类别]劳动纠纷\n"
     "[类别]交通事故\n[类别]债权债务\n[类别]合同纠纷\n[类别]劳动纠纷", CONSULT, None),
    # three labels in order are no recital; out of order four are several labels: none either way
    ("[类别]劳动纠纷<eoa>\n咨询：工资被拖欠怎么办？\n[类别]交通事故<eoa>", CONSULT, "劳动纠纷"),
    # two-label sets have no recitals
    ("谣言、非谣言、谣言、非谣言", RUMOR, None),
])
def test_read_label_a_recital_of_the_label_list_names_nothing(raw, labels, expected):
    assert read_label(raw, labels) == expected


@pytest.mark.parametrize("raw, expected", [
    ("\n\n[类别]运输合同纠纷[eoa]", None),          # 合同纠纷 inside a longer word in the slot
    ("类别：家庭房产纠纷<eoa>", None),
    ("[类别] 商标侵权<eoa>", None),                  # space after the slot's bracket
    ("[类别]合同纠纷<eoa>", "合同纠纷"),              # the label itself
    ("类别：这属于房产纠纷", "房产纠纷"),             # a copula inside: a phrase, read as before
    ("[类别]因为双方签订的买卖合同未履行而产生的合同纠纷", "合同纠纷"),  # longer than a word: a phrase
])
def test_read_label_a_longer_word_in_the_slot_is_no_label(raw, expected):
    assert read_label(raw, CONSULT) == expected


@pytest.mark.parametrize("raw, expected", [
    # a long answer that uses a label as a noun of its prose names nothing (a topic set of 4+ labels)
    ("事实与理由：上诉人与被上诉人签订借款合同，约定借款200万元，借款期限为一年，"
     "借款利息为年利率10%，借款到期后按月付息。", None),
    ("被上诉人答辩认为：一、上诉人未履行补充协议的约定，构成违约。答辩人可以依法解除补充协议，请求驳回上诉。", None),
    # … where it commits to it, the label counts: a copula or a head, a clause or a line of its own
    ("根据上述句子中双方对借款金额和还款期限的不同说法，可以判断本案的争议焦点是本金争议，理由如下。", "本金争议"),
    ("上诉人与被上诉人对借款的金额存在不同的说法，双方各执一词，均提交了相应的证据材料。\n"
     "本金争议\n以上是我的判断。", "本金争议"),
    ("[争议焦点]：违约\n理由：被上诉人未按合同约定的期限支付货款，上诉人据此主张解除合同并要求赔偿损失。", "违约"),
    # a field name is no commitment; two committed labels are several
    ("诉讼主体：原告、被告\n租金情况：无\n以上各项均根据句子内容填写，如有遗漏请另行补充说明。谢谢。", None),
    ("根据给出的句子，我们可以看出争议焦点类别为诉讼主体和责任认定，具体来说句子中涉及上诉人和被上诉人。", None),
    # short answers are read as before
    ("借款利息过高", "利息"),
])
def test_read_label_a_label_in_long_prose_counts_only_where_committed(raw, expected):
    assert read_label(raw, DISPUTE + ("责任认定",)) == expected


def test_read_label_verdict_sets_keep_prose_mentions():
    # two- and three-label sets are verdicts: the word counts wherever it stands in a long answer
    long = ("经过对材料中信息来源、传播路径和事实依据的逐一核对，"
            "可以看出这条消息缺乏可靠来源，纯属谣言，请大家不要转发。")
    assert len(long) > 40 and read_label(long, RUMOR) == "谣言"
    calm = "综合以上分析，这段评论的用词、语气和表达的态度整体上看都比较温和，并无明显的倾向，应当归为中性一类。"
    assert read_label(calm, SENT) == "中性"
    assert read_label("[结论]谣言信息", RUMOR) == "谣言"  # no longer-word rule for verdicts either


@pytest.mark.slow
def test_read_label_is_linear_on_recitals_and_long_prose():
    from growth import assert_linear

    recital = "".join(f"[类别]{label}<eoa>\n" for label in CONSULT)
    assert read_label(recital * 3, CONSULT) is None
    assert_linear(lambda text: read_label(text, CONSULT), lambda n: recital * n, 400, what="read_label recitals")
    prose = "借款利息为年利率10%，双方因违约发生争议，"
    assert read_label(prose * 3, DISPUTE) is None
    assert_linear(lambda text: read_label(text, DISPUTE), lambda n: prose * n, 1000, what="read_label prose")
    joined = "争议焦点为" + "和".join(DISPUTE * 200)   # every mention committed through the joins
    assert read_label(joined, DISPUTE) is None


@pytest.mark.parametrize("raw, expected, why", [
    (None, None, "empty turn"),
    ("", None, "empty turn"),
    ("```\n[类别]劳动纠纷\n```", "劳动纠纷", None),                       # fenced
    ("［类别］劳动纠纷＜eoa＞", "劳动纠纷", None),                          # full-width brackets and marker
    ("抱歉，我无法判断这个咨询的类别。", None, "no label named"),          # refusal
    ("［类别］劳动纠纷＜eoa＞\n［类别］交通事故＜eoa＞\n［类别］债权债务＜eoa＞\n［类别］合同纠纷＜eoa＞", None,
     "a recital of the label list"),                                      # full-width recital
    ("[类别]運輸合同糾紛<eoa>", None, "a longer word in the answer slot"),  # Traditional, folded first
    ("<think>想想：劳动纠纷？</think>[类别]交通事故", "交通事故", None),
])
def test_read_label_topic_kinds_on_ugly_outputs(raw, expected, why):
    from cpsd_tasks.reading import unread_label_reason

    assert read_label(raw, CONSULT) == expected
    assert unread_label_reason(raw, CONSULT) == why
