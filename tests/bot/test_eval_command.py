"""`coursebot eval`, run in-process on a tiny two-course dataset: the summary line scripts
parse, the JSON report and its configuration block, --limit, --budget, --answers, and the
errors a user can cause."""

from __future__ import annotations

import json
import platform
import re
from pathlib import Path

import pytest

from bot.cli import main
from core.answering.answerability import FEATURES
from core.retrieval import DEFAULT_VARIANT

SUMMARY = re.compile(
    r"^eval: n=(?P<n>\d+) source_hit@1=\d\.\d{3} source_hit@5=(?P<hit5>\d\.\d{3}) "
    r"mrr@10=\d\.\d{3} span_hit@5=(?P<span5>\d\.\d{3}) ctx_chars=(?P<ctx>\d+)"
    r"(?P<answers> abstain=\d\.\d{3} wrong_abstain=\d\.\d{3} "
    r"answer_span_hit=(?P<answer_span>\d\.\d{3}) first_quote_hit=(?P<first>\d\.\d{3}) "
    r"answer_chars=(?P<answer_chars>\d+) answer_quotes=(?P<quotes>\d+\.\d)"
    r"(?: key_facts=(?P<facts>\d\.\d{3}) key_facts_all=\d\.\d{3})?)? "
    r"p50_ms=\d+\.\d p95_ms=\d+\.\d$"
)

COURSES = {
    "algebra": {
        "syllabus.md": "# Algebra syllabus\n\n## Exams\n\nThe final exam is on December 14 in "
        "room B12. The midterm exam counts for 30% of the grade.\n\n## Office hours\n\n"
        "Office hours are on Tuesdays from 2 to 4 pm in room C3.\n",
        "homework.md": "# Homework policy\n\nHomework is submitted through the course "
        "website by Friday at noon. Late homework loses ten percent per day.\n",
    },
    "history": {
        "outline.md": "# Modern history outline\n\nWeek one covers the French Revolution. "
        "Week two covers the Napoleonic wars and the Congress of Vienna.\n",
        "readings.md": "# Readings\n\nThe required textbook is A History of Modern Europe by "
        "John Merriman. Weekly readings are posted on the library reserve.\n",
    },
}

QUESTIONS = [
    {
        "id": "q1",
        "course": "algebra",
        "question": "When is the final exam?",
        "type": "single factual",
        "answerable": True,
        "gold_spans": ["The final exam is on December 14 in room B12."],
        "gold_sources": ["syllabus.md"],
        "answer": "On December 14, in room B12.",
    },
    {
        "id": "q2",
        "course": "algebra",
        "question": "How do I hand in my homework\nand what if it's late?",
        "type": "multi factual",
        "answerable": True,
        "gold_spans": ["Homework is submitted through the course web-\nsite by Friday at noon."],
        "gold_sources": ["Homework.MD"],
    },
    {
        "id": "q3",
        "course": "history",
        "question": "Which textbook do we need?",
        "type": "single factual",
        "answerable": True,
        "gold_spans": ["The required textbook is A History of Modern Europe by John Merriman."],
        "gold_sources": ["readings.md"],
    },
    {
        "id": "q4",
        "course": "history",
        "question": "What does week two cover?",
        "type": "single factual",
        "answerable": True,
        "gold_spans": [],
        "gold_sources": ["outline.md"],
        "answer": "The Napoleonic wars and the Congress of Vienna.",
    },
    {
        "id": "q5",
        "course": "algebra",
        "question": "Is there free parking for students on campus?",
        "type": "no answer",
        "answerable": False,
        "gold_spans": [],
        "gold_sources": [],
    },
]


def write_dataset(root: Path, questions: list[dict[str, object]] = QUESTIONS) -> Path:
    for course, files in COURSES.items():
        folder = root / "courses" / course
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    lines = [json.dumps(q) for q in questions]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(tmp_path / "data"))
    return write_dataset(tmp_path / "dataset")


def last_line(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def test_eval_prints_a_per_type_table_and_ends_with_the_summary_line(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "report.json"
    assert main(["eval", str(dataset), "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    summary = SUMMARY.match(last_line(out))
    assert summary, last_line(out)
    assert summary["n"] == "5"
    assert summary["hit5"] == "1.000"
    assert summary["span5"] == "1.000"
    assert summary["answers"] is None
    for kind in ("single factual", "multi factual", "no answer", "all"):
        assert re.search(rf"^{kind}\s", out, re.MULTILINE), kind

    report = json.loads(out_file.read_text())
    assert report["variant"] == DEFAULT_VARIANT
    assert report["overall"]["n"] == 5
    assert report["overall"]["source_hit@5"] == 1.0
    assert report["overall"]["abstain"] is None
    assert set(report["by_type"]) == {"single factual", "multi factual", "no answer"}
    assert report["by_type"]["no answer"]["source_hit@5"] is None
    questions = {q["id"]: q for q in report["questions"]}
    assert list(questions) == ["q1", "q2", "q3", "q4", "q5"]
    homework = questions["q2"]
    assert set(homework) >= {
        "id",
        "course",
        "type",
        "answerable",
        "retrieved",
        "source_hit@1",
        "source_hit@5",
        "rr@10",
        "span_hit@5",
        "ctx_chars",
        "latency_ms",
        "grounded",
        "support",
        "answer",
        "answer_chars",
        "answer_span_hit",
    }
    assert "homework.md" in homework["retrieved"][:5]
    assert set(homework["retrieved"]) <= {"homework.md", "syllabus.md"}  # its own course only
    assert homework["span_hit@5"] is True
    assert homework["latency_ms"] > 0
    assert homework["ctx_chars"] > 0
    assert report["budget"] is None
    assert questions["q4"]["span_hit@5"] is None
    assert questions["q5"]["source_hit@5"] is None
    assert questions["q5"]["grounded"] is None


def test_eval_limit_asks_only_the_first_questions(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "report.json"
    assert main(["eval", str(dataset), "--limit", "2", "--json", str(out_file)]) == 0
    assert last_line(capsys.readouterr().out).startswith("eval: n=2 ")
    assert [q["id"] for q in json.loads(out_file.read_text())["questions"]] == ["q1", "q2"]


def test_eval_with_answers_adds_abstention_rates_and_reuses_a_kept_index(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "report.json"
    index = tmp_path / "index"
    assert main(["eval", str(dataset), "--index", str(index), "--limit", "1"]) == 0
    assert "4 added" in capsys.readouterr().err
    args = ["eval", str(dataset), "--answers", "--k", "3", "--index", str(index)]
    assert main([*args, "--json", str(out_file)]) == 0
    captured = capsys.readouterr()
    assert "4 unchanged" in captured.err
    summary = SUMMARY.match(last_line(captured.out))
    assert summary and summary["answers"], last_line(captured.out)
    report = json.loads(out_file.read_text())
    assert report["answers"] is True and report["k"] == 3
    assert all(isinstance(q["grounded"], bool) for q in report["questions"])
    assert "support" in report["questions"][0]
    # What the answerability model reads, recorded for bench/abstention.py to re-fit it.
    assert set(report["questions"][0]["evidence"]) == set(FEATURES)
    questions = {q["id"]: q for q in report["questions"]}
    assert all(isinstance(questions[q]["answer_span_hit"], bool) for q in ("q1", "q2", "q3"))
    assert questions["q4"]["answer_span_hit"] is None  # no gold spans to judge by
    assert questions["q4"]["first_quote_hit"] is None
    assert all(isinstance(q["answer_quotes"], int) for q in report["questions"] if q["grounded"])
    # q1's reference states two key facts (14, b12); q4's states none, q5 is unanswerable.
    assert isinstance(questions["q1"]["key_facts"], float)
    assert questions["q4"]["key_facts"] is None and questions["q5"]["key_facts"] is None
    assert report["overall"]["n_key_facts"] == 1
    assert summary["facts"] == f"{questions['q1']['key_facts']:.3f}"
    assert all(q["answer_chars"] == len(q["answer"]) > 0 for q in report["questions"])
    assert report["overall"]["n_answer_spans"] == 3
    assert report["config"]["answers"] is True


def test_a_budget_bounds_the_context_and_span_hit_looks_only_at_what_fits(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, packed = tmp_path / "whole.json", tmp_path / "packed.json"
    assert main(["eval", str(dataset), "--json", str(whole)]) == 0
    assert SUMMARY.match(last_line(capsys.readouterr().out))
    # 30 characters hold at most 6 words of any gold span (each has 10 or more): no hit.
    assert main(["eval", str(dataset), "--budget", "30", "--json", str(packed)]) == 0
    out = capsys.readouterr().out
    summary = SUMMARY.match(last_line(out))
    assert summary, last_line(out)
    assert summary["span5"] == "0.000" and summary["hit5"] == "1.000"
    assert int(summary["ctx"]) <= 30
    assert "budget 30 chars · unit vectors" in out.splitlines()[0]
    report = json.loads(packed.read_text())
    assert report["budget"] == 30 and report["config"]["budget"] == 30
    assert all(0 < q["ctx_chars"] <= 30 for q in report["questions"])
    unpacked = {q["id"]: q for q in json.loads(whole.read_text())["questions"]}
    for question in report["questions"]:
        # Sources and ranks are judged on the whole ranking, budget or not.
        assert question["retrieved"] == unpacked[question["id"]]["retrieved"]
        assert question["ctx_chars"] < unpacked[question["id"]]["ctx_chars"]


def test_the_json_report_records_the_run_configuration(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "report.json"
    args = ["eval", str(dataset), "--k", "4", "--budget", "4000", "--limit", "3"]
    assert main([*args, "--variant", "rrf", "--json", str(out_file)]) == 0
    config = json.loads(out_file.read_text())["config"]
    assert config["variant"] == "rrf" and config["retrieval"]["mode"] == "rrf"
    assert (config["k"], config["budget"], config["limit"], config["questions"]) == (4, 4000, 3, 3)
    assert config["answers"] is False
    assert config["answer_model"] is None and config["models"] == {}  # extractive, no LLM
    assert config["embedder"] and "sha256:" in config["embedder_identity"]
    assert config["unit_vectors"] is True  # a new index, the bundled embedder
    assert config["reranker_model"] is None
    versions = config["versions"]
    assert {"coursebot", "qdrant-edge-py", "onnxruntime", "llama-index-core"} <= set(versions)
    assert versions["coursebot"] and versions["onnxruntime"]
    assert config["python"] == platform.python_version()


def test_a_question_for_a_course_without_a_folder_is_a_miss_warned_about_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(tmp_path / "data"))
    ghost = [{**q, "id": f"ghost-{n}", "course": "ghost"} for n, q in enumerate(QUESTIONS[:2])]
    dataset = write_dataset(tmp_path / "dataset", [QUESTIONS[0], *ghost])
    out_file = tmp_path / "report.json"
    assert main(["eval", str(dataset), "--json", str(out_file)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("ghost") == 1
    assert "warning: course 'ghost' has no folder" in captured.err
    assert " source_hit@5=0.333 " in last_line(captured.out)
    ghosts = [q for q in json.loads(out_file.read_text())["questions"] if q["course"] == "ghost"]
    assert [(q["retrieved"], q["source_hit@5"]) for q in ghosts] == [([], False), ([], False)]


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        ("", "no dataset folder at"),
        ("courses", "has no courses/ folder"),
        ("questions.jsonl", "has no questions.jsonl"),
    ],
)
def test_eval_of_an_incomplete_dataset_is_one_error_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], remove: str, message: str
) -> None:
    root = tmp_path / "dataset"
    if remove:
        write_dataset(root)
        target = root / remove
        if target.is_dir():
            for child in sorted(target.rglob("*"), reverse=True):
                child.unlink() if child.is_file() else child.rmdir()
            target.rmdir()
        else:
            target.unlink()
    assert main(["eval", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("coursebot: ") and message in captured.err


def test_eval_rejects_an_unknown_variant_listing_the_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["eval", "x", "--variant", "bm25"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bm25'" in err
    assert "'dense'" in err and "'rrf'" in err
