"""The IE reader with an explicit entity-type inventory (docs/answer_reading.md, "The corpus audit"):
another benchmark's types — LawBench's ten of its 2-6 — read as the plugin reads its own.

Every expected reading is worked out by hand from the reader's rules (docs/information_extraction.md):
``类型：值`` lines (a list marker allowed, values split at 、/;/, , none-answers dropped, a person's
trailing note dropped), JSON items of a known or an unknown type, aliases in lookup form.
"""

from __future__ import annotations

import pytest

from cpsd_tasks import ie
from cpsd_tasks.audit import ner
from cpsd_tasks.reading.ie_items import ItemReader
from cpsd_tasks.reading.ie_names import UNKNOWN, Inventory, ner_inventory, task_inventory
from cpsd_tasks.reading.ie_parse import Parsed, parse_output

TYPES = ("犯罪嫌疑人", "受害人", "被盗货币", "物品价值", "盗窃获利",
         "被盗物品", "作案工具", "时间", "地点", "组织机构")
LAWBENCH = ner.inventory(TYPES)


@pytest.mark.parametrize("output, items", [
    # canonical names, a list marker, full-width colons; 、 splits one type's values
    ("- 犯罪嫌疑人：黄某某\n- 受害人：戚某某、李某",
     (("犯罪嫌疑人", "黄某某"), ("受害人", "戚某某"), ("受害人", "李某"))),
    # aliases: 被告人 → 犯罪嫌疑人, 被害人 → 受害人, 作案时间 → 时间, 日期 (the plugin's tasks' too) → 时间
    ("被告人：黄某某\n被害人：戚某某\n作案时间：13时许\n日期：6月底", (("犯罪嫌疑人", "黄某某"), ("受害人", "戚某某"),
                                                  ("时间", "13时许"), ("时间", "6月底"))),
    # one line, groups separated by ；: each group is read (无 is no entity)
    ("犯罪嫌疑人：黄某某；被盗货币：无；被盗物品：电瓶4只", (("犯罪嫌疑人", "黄某某"), ("被盗物品", "电瓶4只"))),
    # a person's trailing note is dropped (NFKC makes the brackets ASCII); a place keeps its own, less the
    # edge punctuation every compared string loses (the gold's alike)
    ("受害人：戚某某（车主）\n地点：花木田（小学对面）", (("受害人", "戚某某"), ("地点", "花木田(小学对面"))),
    # a line of a type outside the ten names nothing (人名 could be suspect or victim)
    ("人名：黄某某\n组织机构：嵊州市公安局", (("组织机构", "嵊州市公安局"),)),
    # JSON: a known type, an unknown one (kept as a false positive), grouped objects
    ('[{"type": "受害人", "text": "戚某某"}, {"type": "人名", "text": "黄某某"}]',
     (("受害人", "戚某某"), (UNKNOWN, "黄某某"))),
    ('{"犯罪嫌疑人": ["黄某某", "张某"], "物品价值": "人民币352元"}',
     (("犯罪嫌疑人", "黄某某"), ("犯罪嫌疑人", "张某"), ("物品价值", "人民币352元"))),
    # English names
    ('[{"type": "Victim", "text": "戚某某"}, {"type": "Stolen items", "text": "电瓶"}]',
     (("受害人", "戚某某"), ("被盗物品", "电瓶"))),
])
def test_lawbench_types_are_read_like_the_plugins_own(output, items):
    assert parse_output(output, LAWBENCH) == Parsed(items, True)


def test_an_output_naming_no_type_of_the_inventory_is_no_answer():
    assert parse_output("人名：黄某某、戚某某<eoa>", LAWBENCH) == Parsed((), False)
    assert parse_output("无", LAWBENCH) == Parsed((), True)              # an explicit empty answer


def test_the_same_name_files_under_each_inventorys_own_type():
    line = "受害人：戚某某\n犯罪嫌疑人：黄某某"
    # fraud_ner has 受害人 as an alias of 报案人 and no suspect type; drug_ner has 犯罪嫌疑人 as 人名
    assert parse_output(line, "fraud_ner").items == (("报案人", "戚某某"),)
    assert parse_output(line, "drug_ner").items == (("人名", "黄某某"),)
    assert parse_output(line, LAWBENCH).items == (("受害人", "戚某某"), ("犯罪嫌疑人", "黄某某"))


def test_a_task_id_and_its_inventory_read_alike():
    output = '人名：汪某\n```json\n[{"type": "毒品类型", "text": "冰毒"}]\n```'
    for task in ("drug_ner", "fraud_ner", "drug_re"):
        assert parse_output(output, task) == parse_output(output, task_inventory(task))
        assert ItemReader(task).inventory is task_inventory("cpsd_" + task)
    assert task_inventory("drug_re").kind == "re" and task_inventory("drug_ner").person_types == {"人名", "报案人"}
    with pytest.raises(KeyError):
        parse_output("x", "no_such_task")


def test_ner_inventory_builds_names_in_lookup_form():
    inventory = ner_inventory({"甲方": ("Party A", "一方"), "乙方": ("一方",), "时间": ()}, person_types=("甲方",))
    assert isinstance(inventory, Inventory) and inventory.kind == "ner"
    assert inventory.canonical("party_a") == inventory.canonical("PARTY-A") == "甲方"      # spaces, _, - and case
    assert inventory.canonical("一方") is None                      # given for two types: names neither
    assert inventory.canonical("日期") == "时间"                     # the shared aliases of 时间
    assert inventory.canonical("乙方") == "乙方" and inventory.canonical(3) is None
    assert inventory.person_types == {"甲方"}
    # read with it: the person's note is dropped, 日期 is 时间, an unknown JSON type is a false positive
    assert parse_output("甲方：张某（主犯）、李某\n日期：6月", inventory) == Parsed(
        (("甲方", "张某"), ("甲方", "李某"), ("时间", "6月")), True)
    assert parse_output('[{"type": "丙方", "text": "王某"}]', inventory).items == ((UNKNOWN, "王某"),)
    assert ner_inventory(["地点"]).canonical("location") == "地点"
    with pytest.raises(ValueError):
        ner_inventory([])
    with pytest.raises(ValueError):
        ner_inventory(["时间", "时 间"])                              # the same type twice (lookup form)
    with pytest.raises(ValueError):
        ner_inventory(["时间"], person_types=("人名",))


def test_exact_only_types_of_another_inventory():
    gold = [("受害人", "戚某甲"), ("被盗物品", "电动自行车一辆")]
    pred = [("受害人", "戚某乙"), ("被盗物品", "电动自行车1辆")]
    # 戚某甲/戚某乙: 3 characters, under the floor; 电动自行车一辆/…1辆: 1 edit in 7, similarity 6/7 ≥ 0.8
    plugin = ie.match_entities(gold, pred)
    assert (plugin["受害人"].tp_fuzzy, plugin["被盗物品"].tp_fuzzy) == (0, 1)
    # names as another inventory's exact-only types: 被盗物品 given as exact-only matches no more
    assert ie.match_entities(gold, pred, exact_only={"被盗物品"})["被盗物品"].tp_fuzzy == 0
    assert ner.EXACT_ONLY == {"犯罪嫌疑人", "受害人", "被盗货币", "物品价值", "盗窃获利"}
