"""Classification judgement, per-sample metrics and macro P/R/F1 (docs/metrics.md#classification)."""

import pytest

from cpsd_tasks.classification import judge, macro_prf, process_results
from cpsd_tasks.tasks import get_task

FRAUD = get_task("fraud_detection")
SENT = get_task("sentiment")


@pytest.mark.parametrize("output, gold, strict, fuzzy, refusal, error", [
    ("诈骗", "诈骗", "诈骗", "诈骗", False, "correct"),
    ("**诈骗**", "诈骗", "诈骗", "诈骗", False, "correct"),
    ("这是一条典型的诈骗短信，请勿转账。", "诈骗", None, "诈骗", False, "format"),
    ("不是诈骗", "正常", None, "正常", False, "format"),
    ("正常", "诈骗", "正常", "正常", False, "content"),
    ("诈骗还是正常无法确定", "诈骗", None, None, False, "instruction"),
    ("请提供更多信息。", "诈骗", None, None, False, "instruction"),
    ("抱歉，我无法协助判断。", "诈骗", None, None, True, "refusal"),
    ("抱歉，我无法确定，但可能是诈骗", "诈骗", None, "诈骗", False, "format"),
    ("抱歉，我无法判断这是否是诈骗。", "诈骗", None, None, True, "refusal"),
    ("```json\n诈骗\n```", "诈骗", "诈骗", "诈骗", False, "correct"),
    ("", "正常", None, None, True, "refusal"),
    (None, "正常", None, None, True, "refusal"),
    ("<think>想了很久", "正常", None, None, True, "refusal"),
    ("x" * 10000, "正常", None, None, False, "instruction"),
])
def test_judge(output, gold, strict, fuzzy, refusal, error):
    j = judge(output, gold, FRAUD)
    assert (j.strict, j.fuzzy, j.refusal, j.error_class) == (strict, fuzzy, refusal, error)


def test_process_results_values():
    doc = {"task": "sentiment", "label": "积极", "id": "1", "text": "t"}
    out = process_results(doc, ["情感倾向：正面"])
    assert out["acc"] == 0.0 and out["acc_fuzzy"] == 1.0 and out["score"] == 0.0
    assert out["f1_macro"] == ("积极", "积极", "sentiment")  # a MacroItem, logged as a list
    assert out["refusal_rate"] == 0.0 and out["invalid_rate"] == 0.0
    refused = process_results(doc, [None])
    assert refused["refusal_rate"] == 1.0 and refused["invalid_rate"] == 1.0
    assert refused["f1_macro"] == ("积极", None, "sentiment")
    assert process_results(doc, [])["invalid_rate"] == 1.0


def test_macro_prf_by_hand_binary():
    # gold 诈骗 x3, 正常 x2; predictions 诈骗, 正常, <none>, 正常, 诈骗.
    # 诈骗: TP 1, predicted 2, gold 3 -> P 1/2, R 1/3, F1 0.4
    # 正常: TP 1, predicted 2, gold 2 -> P 1/2, R 1/2, F1 0.5
    items = [["诈骗", "诈骗", "fraud_detection"], ["诈骗", "正常", "fraud_detection"],
             ["诈骗", None, "fraud_detection"], ["正常", "正常", "fraud_detection"],
             ["正常", "诈骗", "fraud_detection"]]
    p, r, f = macro_prf(items)
    assert p == pytest.approx(0.5)
    assert r == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert f == pytest.approx((0.4 + 0.5) / 2)


def test_macro_prf_class_never_predicted_counts_zero():
    # all predicted 积极: 积极 P 1/3 R 1 F1 0.5; 消极 and 中性 0 (no prediction -> precision 0)
    items = [["积极", "积极", "sentiment"], ["消极", "积极", "sentiment"], ["中性", "积极", "sentiment"]]
    p, r, f = macro_prf(items)
    assert (p, r, f) == pytest.approx((1 / 9, 1 / 3, 1 / 6))


def test_macro_prf_classes_absent_from_gold_still_count():
    # only 积极 in gold and all correct: the other two labels give 0, so macro F1 = 1/3
    items = [["积极", "积极", "sentiment"]] * 4
    assert macro_prf(items) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert macro_prf([]) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("task", ["sentiment", "rumor", "fraud_detection", "incident_classification"])
def test_macro_prf_bit_identical_to_scikit_learn(task):
    """macro_prf computes from counts with numpy; every value equals scikit-learn's exactly (==,
    not approx) on random label lists: any size, unreadable predictions, labels never predicted
    or never in gold, a single class."""
    import random

    from sklearn.metrics import precision_recall_fscore_support

    labels = list(get_task(task).labels)
    rng = random.Random(task)
    for trial in range(400):
        n = rng.choice([1, 2, 3, 5, 17, 100, 601])
        gold_pool = labels if trial % 5 else labels[:1]
        pred_pool = labels + [None] * rng.randint(0, 3) if trial % 7 else labels[1:] + [None]
        items = [[rng.choice(gold_pool), rng.choice(pred_pool), task] for _ in range(n)]
        expected = precision_recall_fscore_support(
            [g for g, _, _ in items], [p if p is not None else "<no label>" for _, p, _ in items],
            labels=labels, average="macro", zero_division=0)[:3]
        assert macro_prf(items) == tuple(float(x) for x in expected), (trial, items)


@pytest.mark.e2e
def test_macro_prf_does_not_import_scikit_learn():
    """Aggregating a classification task must not import scikit-learn (≈3 s and ≈70 MiB)."""
    import subprocess
    import sys

    code = ("import sys; from cpsd_tasks.classification import macro_prf; "
            "macro_prf([['诈骗', '正常', 'fraud_detection'], ['正常', None, 'fraud_detection']]); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
