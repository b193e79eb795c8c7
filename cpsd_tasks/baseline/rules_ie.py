"""Rule baseline for the three information-extraction tasks: regular expressions and a drug lexicon.

* ``drug_ner``: times (dates with optional 上午/晚 and clock time, 许 left out as in the CAIL2022
  style), drug quantities (number + 克/千克/公斤/毫克/粒/颗/包/支/瓶), drug names from
  :data:`DRUG_LEXICON` (longest first), anonymised person names (common surname + 某 + 某/甲乙丙丁/
  digit), and places (after 在/至/到/于, the longest run of characters within the clause that ends
  in a place word such as 市/区/路/号/室/小区/酒店/门口). Every occurrence is listed, in text order.
* ``fraud_ner``: the same times and places; 报案人 = the name right after 报案人/报警人 and every later
  occurrence of it; 社交账号 = the ID after QQ/微信/抖音/快手/支付宝 (号/账号)(为/是/:); 电话号码 =
  mobile (1[3-9] + 9 digits), landline (0 + area code + 7–8 digits) and 400/800 numbers;
  金额 = number (+万/千) + 元.
* ``drug_re``: per sentence (split at 。；): 容留 → (person before it, 非法容留, each person after it);
  卖给/贩卖给/出售给/交给 or 向 X 出售/贩卖 → (seller = first person of the sentence, 贩卖给, buyer) and
  (seller, 贩卖毒品, first drug of the sentence); 查获/缴获 + a drug → (last person named before it in
  the sentence, or else the previous sentence's last person, 持有, that drug). Triples are
  deduplicated.

Where two patterns overlap, the earlier one in the order above wins (identifiers before amounts,
amounts before times, …). These are transparent lower bounds, not a model.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Iterable

#: Drug names the baseline recognises (longest match first).
DRUG_LEXICON: tuple[str, ...] = tuple(sorted((
    "甲基苯丙胺片剂", "甲基苯丙胺", "冰毒", "海洛因", "麻古", "麻果", "氯胺酮", "K粉", "大麻", "摇头丸", "可卡因",
    "吗啡", "鸦片", "咖啡因", "美沙酮", "曲马多", "甲卡西酮", "杜冷丁", "三唑仑", "芬太尼", "γ-羟丁酸", "MDMA",
), key=len, reverse=True))

_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴"
    "霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑"
    "景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
_NAME = re.compile(
    r"(?:欧阳|司马|诸葛|上官|司徒|东方|皇甫|慕容|令狐|夏侯|[" + _SURNAMES + r"])某"
    r"(?:某|[甲乙丙丁戊]|\d)?(?!日|天|时|地|处|年|月|些|种|个|人|公司|小区|宾馆|酒店|花园|路|街|村|镇|县|市)"
)
_DATE = (r"(?:\d{4}年(?:\d{1,2}月(?:\d{1,2}日|上旬|中旬|下旬|份|初|底)?)?"
         r"|(?:同年|当年)?\d{1,2}月(?:\d{1,2}日|上旬|中旬|下旬|份)|(?:同月|当月)\d{1,2}日)")
_CLOCK = r"(?:凌晨|早上|上午|中午|下午|傍晚|晚上|深夜|晚)?(?:\d{1,2}时(?:\d{1,2}分)?)?"
_TIME = re.compile(_DATE + _CLOCK + r"|(?:当日|当晚|当天|次日)(?:凌晨|上午|中午|下午|晚上)?\d{1,2}时(?:\d{1,2}分)?")
_QUANTITY = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?:千克|公斤|毫克|克|粒|颗|包|支|瓶)")
_PLACE_END = (r"省|市|县|区|镇|乡|村|路|街|巷|号|室|栋|小区|广场|酒店|宾馆|公园|KTV|超市|茶楼|派出所|收费站|大厦|"
              r"中心|商场|营业厅|门口|附近|路口|交叉口|包间|房间|宿舍楼|门卫室|咖啡馆|厕所")
_PLACE = re.compile(r"(?:在|至|到|于)(?:其位于|位于|本市)?([\u4e00-\u9fa5A-Za-z0-9\-]{1,40}(?:" + _PLACE_END + r"))")
_DRUG = re.compile("|".join(map(re.escape, DRUG_LEXICON)))
_REPORTER = re.compile(r"(?:报案人|报警人)([\u4e00-\u9fa5]{1,2}某(?:某|[甲乙丙丁]|\d)?|[\u4e00-\u9fa5]{2,3}?)"
                       r"(?=[（(，,：:称到于在向]|$)")
_ACCOUNT = re.compile(r"(?:QQ|qq|微信|抖音|快手|支付宝)(?:号码|号|账号)?(?:为|是)?[:：]?\s*"
                      r"([A-Za-z0-9][A-Za-z0-9_\-]{4,29})")
_PHONE = re.compile(r"(?<![\d-])(?:1[3-9]\d{9}|0\d{2,3}-?\d{7,8}|[48]00\d{7})(?![\d-])")
_MONEY = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:万|千)?元|(?<![\d.,])\d+(?:\.\d+)?(?:万|千)?元")
_SENTENCE_END = re.compile(r"[。；;]")
_SHELTER = re.compile(r"容留")
_SOLD_TO = re.compile(r"(?:贩卖给|卖给|出售给|交给)")
_SELLS_TO = re.compile(r"向(" + _NAME.pattern + r")(?:[^，。]{0,12}?)(?:出售|贩卖)")
_SEIZED = re.compile(r"查获|缴获")

Span = tuple[int, int, str, str]  # start, end, type, text


def _add(spans: list[Span], found: Iterable[Span]) -> None:
    """Add spans that overlap none already taken (earlier patterns win)."""
    for s in found:
        if all(s[1] <= t[0] or s[0] >= t[1] for t in spans):
            spans.append(s)


def _matches(pattern: re.Pattern, text: str, typ: str, group: int = 0) -> list[Span]:
    return [(m.start(group), m.end(group), typ, m.group(group)) for m in pattern.finditer(text)
            if m.group(group)]


def _to_json(spans: list[Span]) -> str:
    return json.dumps([{"type": t, "text": s} for _, _, t, s in sorted(spans)], ensure_ascii=False)


def drug_entities(text: str) -> list[Span]:
    """Entity spans of a drug-case text (see module docstring), unordered."""
    spans: list[Span] = []
    _add(spans, _matches(_QUANTITY, text, "毒品数量"))
    _add(spans, _matches(_TIME, text, "时间"))
    _add(spans, _matches(_DRUG, text, "毒品类型"))
    _add(spans, _matches(_NAME, text, "人名"))
    _add(spans, _matches(_PLACE, text, "地点", 1))
    return spans


def fraud_entities(text: str) -> list[Span]:
    """Entity spans of a fraud-case text (see module docstring), unordered."""
    spans: list[Span] = []
    _add(spans, _matches(_ACCOUNT, text, "社交账号", 1))
    _add(spans, _matches(_PHONE, text, "电话号码"))
    _add(spans, _matches(_MONEY, text, "金额"))
    _add(spans, _matches(_TIME, text, "时间"))
    names = {m.group(1) for m in _REPORTER.finditer(text)}
    for name in sorted(names, key=len, reverse=True):
        _add(spans, [(m.start(), m.end(), "报案人", name) for m in re.finditer(re.escape(name), text)])
    _add(spans, _matches(_PLACE, text, "地点", 1))
    return spans


def drug_relations(text: str) -> list[dict[str, str]]:
    """Relation triples of a drug-case text (see module docstring), deduplicated, in text order."""
    triples: list[tuple[str, str, str]] = []
    last_person = None
    for sentence in _SENTENCE_END.split(text):
        people = [(m.start(), m.group()) for m in _NAME.finditer(sentence)]
        drugs = [(m.start(), m.group()) for m in _DRUG.finditer(sentence)]
        for m in _SHELTER.finditer(sentence):
            before = [p for i, p in people if i < m.start()]
            if before:
                triples += [(before[-1], "非法容留", p) for i, p in people if i > m.start() and p != before[-1]]
        sale = _SOLD_TO.search(sentence)
        buyer = None
        if sale:
            after = [p for i, p in people if i >= sale.end()]
            buyer = after[0] if after else None
        else:
            sale = _SELLS_TO.search(sentence)
            buyer = sale.group(1) if sale else None
        if sale and people:
            seller = people[0][1]
            if buyer and buyer != seller:
                triples.append((seller, "贩卖给", buyer))
            if drugs:
                triples.append((seller, "贩卖毒品", drugs[0][1]))
        for m in _SEIZED.finditer(sentence):
            found = [d for i, d in drugs if i > m.start()]
            before = [p for i, p in people if i < m.start()]
            holder = before[-1] if before else last_person
            if found and holder:
                triples.append((holder, "持有", found[0]))
        if people:
            last_person = people[-1][1]
    return [{"head": h, "relation": r, "tail": t} for h, r, t in dict.fromkeys(triples)]


def _ner_rule(extract: Callable[[str], list[Span]]) -> Callable[[dict[str, str]], str]:
    return lambda sections: _to_json(extract(sections.get("输入", "")))


RULES = {
    "drug_ner": _ner_rule(drug_entities),
    "fraud_ner": _ner_rule(fraud_entities),
    "drug_re": lambda sections: json.dumps(drug_relations(sections.get("输入", "")), ensure_ascii=False),
}
