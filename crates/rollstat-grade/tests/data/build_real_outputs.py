"""Build real_outputs.jsonl from public model generations.

Usage: python build_real_outputs.py <git dir of suzgunmirac/BIG-Bench-Hard> <Faithful-COT data dir> > real_outputs.jsonl

The Faithful-COT data dir holds faithfulcot_date_ltm_n40_predictions.jsonl and faithfulcot_date_gold.jsonl
(veronica320/Faithful-COT @ 3017843, copied unchanged into the workspace's shared/data/real/).

The expected verdict of each row is BIG-Bench-Hard's own exact-match scoring
(the text after the last "So the answer is ", trailing period removed, equal to
the target; direct prompting: the stripped prediction equal to the target).
It never calls rollstat. Rows whose verdict was changed by reading are listed
in ADJUDICATED below with the reason, and carry adjudication = "read".
"""

import json
import subprocess
import sys

COMMIT = "9ee07bd481feebf959a6b59d61ea57bdcf30964d"
MCQ_TASKS = [
    "date_understanding",
    "disambiguation_qa",
    "geometric_shapes",
    "hyperbaton",
    "logical_deduction_five_objects",
    "logical_deduction_seven_objects",
    "logical_deduction_three_objects",
    "movie_recommendation",
    "penguins_in_a_table",
    "reasoning_about_colored_objects",
    "ruin_names",
    "salient_translation_error_detection",
    "snarks",
    "temporal_sequences",
    "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects",
    "tracking_shuffled_objects_three_objects",
]
NUMBER_TASKS = ["multistep_arithmetic_two", "object_counting"]
# (setting, rows per task) for MCQ and number tasks
PLAN = {"cot": (20, 60), "direct": (5, 20)}
# row id -> (verdict by reading, reason); filled in after reading the rows
ADJUDICATED: dict[str, tuple[bool, str]] = {}


def load(git_dir: str, setting: str, task: str) -> list[dict]:
    path = f"code-davinci-002-outputs/code-davinci-002-{setting}/{task}_few_shot_template_0-255000.json"
    text = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(text)["outputs"]


def bbh_verdict(setting: str, prediction: str, target: str) -> bool:
    if setting == "direct":
        return prediction.strip() == target.strip()
    marker = "So the answer is "
    if marker not in prediction:
        return False
    answer = prediction.rsplit(marker, 1)[1].strip()
    return answer.removesuffix(".").strip() == target.strip()


def rows(git_dir: str):
    for setting, (n_mcq, n_num) in PLAN.items():
        for tasks, n, mode in (
            (MCQ_TASKS, n_mcq, "mcq"),
            (NUMBER_TASKS, n_num, "math"),
        ):
            for task in tasks:
                outputs = load(git_dir, setting, task)
                step = max(1, len(outputs) // n)
                for index in range(0, len(outputs), step)[:n]:
                    out = outputs[index]
                    row_id = f"bbh/{setting}/{task}/{index}"
                    expected = bbh_verdict(setting, out["prediction"], out["target"])
                    adjudication = "bbh-exact-match"
                    note = ""
                    if row_id in ADJUDICATED:
                        expected, note = ADJUDICATED[row_id]
                        adjudication = "read"
                    yield {
                        "id": row_id,
                        "source": "bbh-code-davinci-002",
                        "mode": mode,
                        "gold": out["target"],
                        "response": out["prediction"],
                        "expected": expected,
                        "adjudication": adjudication,
                        "note": note,
                    }


# Faithful-COT date understanding (Codex, least-to-most, 40 samples per problem):
# every third problem, completion number id % 40. The verdict is the reading of
# each row: the date after the final "So the answer is" compared with the gold
# date by eye (6/25/2019 is 06/25/2019). These problem ids state a wrong date;
# all other sampled rows state the gold date.
FAITHFUL_WRONG_BY_READING = {
    3,
    15,
    18,
    81,
    84,
    87,
    90,
    93,
    96,
    105,
    111,
    117,
    120,
    123,
    129,
    153,
    171,
    243,
    246,
    303,
    309,
    336,
}


def faithful_rows(data_dir: str):
    with open(f"{data_dir}/faithfulcot_date_gold.jsonl") as f:
        gold = {r["id"]: r["answer"] for r in map(json.loads, f)}
    with open(f"{data_dir}/faithfulcot_date_ltm_n40_predictions.jsonl") as f:
        for problem in map(json.loads, f):
            pid = problem["id"]
            if pid % 3:
                continue
            k = pid % 40
            yield {
                "id": f"faithfulcot/date/{pid}/{k}",
                "source": "faithfulcot-date-codex",
                "mode": "math",
                "gold": gold[pid],
                "response": problem["completions"][k],
                "expected": pid not in FAITHFUL_WRONG_BY_READING,
                "adjudication": "read",
                "note": "",
            }


def main() -> None:
    for row in rows(sys.argv[1]):
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    for row in faithful_rows(sys.argv[2]):
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
