from mineclip.assist.benchmark import (
    PARSER_GOALS,
    annotator_agreement,
    evaluation_sets,
    goals_met,
    judge_agreement,
    load_baseline,
    measure_parser,
    parser_table,
)
from mineclip.assist.parser.infer import cached_parser


def test_the_parser_is_measured_on_the_crowd_and_hand_written_sets_beside_its_baseline():
    sets = evaluation_sets()
    assert {k: len(v) for k, v in sets.items()} == {"crowd_test": 476, "handwritten_test": 243,
                                                    "crowd_validation": 459, "handwritten_dev": 59}
    measured = measure_parser(cached_parser(None), {"crowd_test": sets["crowd_test"][:40],
                                                    "handwritten_test": sets["handwritten_test"][:40]})
    before = load_baseline()
    assert before["sets"]["crowd_test"]["n"] == 476 and before["sets"]["handwritten_test"]["exact_match"] == 0.8107
    table = parser_table(measured, before)
    old_kind = before["sets"]["crowd_test"]["kind_accuracy"]
    assert len(table) == 4 and f"{old_kind:.3f} -> " in table[2] and "(goal 0.85)" in table[2]
    assert "(goal 0.8)" in table[3]
    goals = goals_met(measured)
    assert len(goals) == sum(len(g) for g in PARSER_GOALS.values())


def test_the_judges_agreement_is_set_beside_the_commoner_label():
    pairs = [{"score": s, "label": y, "own": o} for s, y, o in
             [(0.9, 1, True), (0.8, 1, False), (0.2, 0, True), (0.1, 0, False), (0.7, 0, False), (0.6, 0, False)]]
    m = judge_agreement(pairs, threshold=0.5)
    assert m["majority_agreement"] == 4 / 6 and m["agreement"] == 4 / 6 and m["auc"] == 1.0
    assert m["own_n"] == 2 and m["own_agreement"] == 1.0


def test_annotators_agreement_is_measured_on_commands_written_twice():
    a = {"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "DESTROY",
                                                           "reference_object": {"has_name": [0, [1, 1]]}}}
    b = {"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "DESTROY",
                                                           "reference_object": {"has_name": [0, [1, 2]]}}}
    pairs = [{"words": ["destroy", "red", "house"], "action_dict": d} for d in (a, b)]
    pairs += [{"words": ["stop"], "action_dict": {"dialogue_type": "NOOP"}}] * 2 + [{"words": ["go"], "action_dict": a}]
    m = annotator_agreement(pairs)
    assert m["groups"] == 2 and m["kind"] == 1.0 and m["exact"] == 0.5
    assert m["reference_span"] == 0.0 and m["reference_groups"] == 1
