"""Rule baseline for the four classification tasks: keyword counts, else the fallback class.

Each task has a small cue lexicon per label. The label with the most cue hits (counting every
occurrence) wins; ties go to the label listed first below; no hit at all gives the task's fallback
class (the paper's sets are balanced, so the fallback is simply a fixed, documented class). These
are deliberately simple lower bounds: a model that cannot beat them has learned nothing.
"""

from __future__ import annotations

from typing import Callable

# task id -> (ordered {label: cue words}, fallback label)
LEXICONS: dict[str, tuple[dict[str, tuple[str, ...]], str]] = {
    "sentiment": ({
        "消极": ("愤怒", "气愤", "可恶", "恶心", "害怕", "恐惧", "担心", "难过", "伤心", "心疼", "痛心",
               "崩溃", "垃圾", "骗子", "无语", "失望", "绝望", "可怕", "太坑", "骂", "哭", "惨", "死"),
        "积极": ("感谢", "谢谢", "致敬", "点赞", "辛苦了", "加油", "感动", "温暖", "开心", "高兴", "平安",
               "好样的", "赞", "希望", "胜利", "守护", "安心", "暖心", "厉害", "棒"),
    }, "中性"),
    "rumor": ({
        "谣言": ("转发", "扩散", "紧急", "速看", "震惊", "千万", "据说", "听说", "注意了", "互相转告",
               "已经证实", "内部消息", "告诉家人", "不转不是", "惊呆", "！！"),
    }, "非谣言"),
    "fraud_detection": ({
        "诈骗": ("转账", "汇款", "验证码", "安全账户", "公检法", "通缉", "涉嫌洗钱", "冻结", "刷单", "返利",
               "佣金", "中奖", "领奖", "无抵押", "低息", "贷款", "征信", "退款", "理赔", "客服", "解冻",
               "保证金", "点击链接", "加微信", "加QQ", "屏幕共享", "兼职"),
    }, "正常"),
    "incident_classification": ({
        "电信诈骗": ("电话", "短信", "微信", "QQ", "网络", "网上", "APP", "转账", "汇款", "冒充", "刷单",
                 "客服", "链接", "诈骗", "骗取", "验证码", "投资平台"),
        "交通事故": ("驾驶", "车辆", "轿车", "货车", "摩托车", "电动车", "碰撞", "相撞", "撞", "追尾",
                 "肇事", "交通", "路口", "道路", "行驶"),
        "故意伤害": ("殴打", "打伤", "刺伤", "砍伤", "轻伤", "重伤", "持刀", "拳打脚踢", "打架", "斗殴",
                 "伤害", "受伤"),
        "盗窃": ("盗窃", "偷", "窃取", "扒窃", "失窃", "被盗", "丢失", "撬", "顺手"),
    }, "盗窃"),
}


def classify(task_id: str, text: str) -> str:
    """Return the rule baseline's label for ``text`` in task ``task_id``.

    Args:
        task_id: one of the four classification task ids.
        text: the input text.

    Returns:
        The label with most cue hits, ties to the earlier label in :data:`LEXICONS`, or the
        task's fallback label when no cue occurs.
    """
    lexicon, fallback = LEXICONS[task_id]
    best, best_hits = fallback, 0
    for label, cues in lexicon.items():
        hits = sum(text.count(cue) for cue in cues)
        if hits > best_hits:
            best, best_hits = label, hits
    return best


def _rule(task_id: str) -> Callable[[dict[str, str]], str]:
    return lambda sections: classify(task_id, sections.get("输入", ""))


RULES = {task_id: _rule(task_id) for task_id in LEXICONS}
