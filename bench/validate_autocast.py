#!/usr/bin/python3
"""ParityLab's emulated gpu-amp-bf16 against PyTorch's real bf16 autocast on this CPU.

Trains small-cnn on Fashion-MNIST in ParityLab (backends cpu-fp32 and gpu-amp-bf16, a study in the
work folder) and in PyTorch (plain fp32, and `torch.autocast("cpu", dtype=torch.bfloat16)` around
forward and loss), every PyTorch run from the initial weights and over the batch order of the
ParityLab run of the same seed (`paritylab-cli export-init`), with AdamW and no weight decay, on
one thread. Then prints, paired by seed:
  fp32 agreement       final accuracies, |loss difference| of the first steps (about 1e-6 or less
                       when both engines compute the same thing), test predictions that differ
  bf16 effect          bf16 - fp32 accuracy per engine and the difference of the two (95% t CI)
  precision churn      the share of test predictions that differ between a seed's fp32 and bf16
                       runs, per engine, and their ratio (95% bootstrap CI over seeds)
  step-1 bf16 loss     |ParityLab gpu-amp-bf16 - PyTorch autocast| at the first step, and against
                       autocast with batch norm in fp32: PyTorch's CPU batch norm sums the
                       statistics of bf16 input less exactly than of fp32 input (mean and
                       1/std off by up to ~2e-5 relative, against ~1e-7; ParityLab sums them as
                       for fp32 input), which alone moves the first loss by about 1e-4
  weight distance      per parameter tensor ||w_bf16 - w_fp32|| / ||w_fp32|| of the final weights
The work folder keeps the study's database (a killed validation continues with `run --resume`),
the exported starts and the PyTorch runs, so running the same command again only does what is
missing.

Optional: needs Debian's python3-torch (`apt-get install python3-torch`); run with /usr/bin/python3.
Usage: bench/validate_autocast.py [--cli build/app/paritylab-cli] [--seeds 24] [--train-size 12000]
                                  [--test-size 10000] [--epochs 2] [--batch-size 128] [--lr 1e-3]
                                  [--work out/validate-autocast] [--threads 0] [--json]
"""

import argparse
import copy
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from contextlib import closing

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in bench/ from the import below
from compare_pytorch import small_cnn  # noqa: E402  (the same PyTorch model as the benchmark)

FP32, BF16 = "cpu-fp32", "gpu-amp-bf16"
LABEL = {"paritylab": "ParityLab", "pytorch": "PyTorch"}
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240917
EVAL_BATCH = 1000
SAVED_FORMAT = 2  # of the PyTorch runs kept in the work folder


def fail(message):
    """Exits with `message`, named after this script."""
    sys.exit(f"validate_autocast: {message}")


def parse_args():
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "paritylab-cli"))
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--train-size", type=int, default=12000)
    parser.add_argument("--test-size", type=int, default=10000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--work", default=os.path.join(ROOT, "out", "validate-autocast"),
                        help="folder for the study's database, the exported starts and the "
                             "PyTorch runs; an existing one is continued")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads of the ParityLab study (0 = one per core); PyTorch uses 1")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if args.seeds < 2:
        fail("--seeds: at least 2 (the intervals are over seeds)")
    return args


def progress(args, text):
    """A progress line: on stdout, or on stderr when stdout carries the JSON."""
    print(text, file=sys.stderr if args.json else sys.stdout, flush=True)


# --- the machine -------------------------------------------------------------------------------

def cpu_description():
    """The CPU's model name from /proc/cpuinfo and whether it has avx512_bf16."""
    name, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and name == "unknown CPU":
                    name = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return name, "avx512_bf16" in flags


def same_blas_kernels(cli):
    """Makes PyTorch's OpenBLAS use the kernels ParityLab selects (compare_pytorch.py does the
    same); must run before torch is imported, as OpenBLAS reads the variable when it loads."""
    try:
        out = subprocess.run([cli, "bench", "--model", "small-cnn", "--backend", FP32, "--batch",
                              "8", "--warmup", "0", "--steps", "1", "--threads", "1", "--json"],
                             check=True, capture_output=True, text=True).stdout
        os.environ.setdefault("OPENBLAS_CORETYPE", json.loads(out)["blas_core"])
    except (subprocess.CalledProcessError, ValueError, KeyError):
        pass


def onednn_bf16_kernel(torch):
    """oneDNN's implementation of a convolution under bf16 autocast, e.g.
    jit_bf16:avx512_core_bf16 (native bf16 instructions), from its verbose output on stdout."""
    with tempfile.TemporaryFile() as tmp:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    torch.nn.functional.conv2d(torch.randn(2, 4, 8, 8), torch.randn(8, 4, 3, 3))
        except (AttributeError, RuntimeError):
            pass
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 4 and fields[1] == "exec" and fields[3] == "convolution":
            return fields[4]
    return "unknown"


def import_torch():
    """torch on one thread, or exits saying how to install it."""
    try:
        import torch
    except ImportError:
        fail("PyTorch is missing: apt-get install python3-torch (and run with /usr/bin/python3)")
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    return torch


# --- the ParityLab study -----------------------------------------------------------------------

def write_spec(args, path):
    """The study: small-cnn under cpu-fp32 and gpu-amp-bf16, final weights kept."""
    spec = {"version": 1, "name": "validate-autocast",
            "dataset": {"source": "fashion-mnist", "train_size": args.train_size,
                        "test_size": args.test_size},
            "model": "small-cnn", "epochs": args.epochs, "batch_size": args.batch_size,
            "optimizer": {"kind": "adamw", "lr": args.lr},
            "backends": [FP32, BF16], "seeds": args.seeds, "threads": args.threads,
            "keep_weights": "final", "chaos_floor": False}
    with open(path, "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")


def run_study(args, spec, db):
    """`paritylab-cli run SPEC --db DB --resume`, its output passed through."""
    out = sys.stderr if args.json else None
    result = subprocess.run([args.cli, "run", spec, "--db", db, "--resume"], stdout=out)
    if result.returncode != 0:
        fail(f"`paritylab-cli run` failed (exit {result.returncode}); a work folder of a study "
             "with other options needs another --work")


def open_db(db):
    """The results database, read-only."""
    return closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True))


def completed_runs(db):
    """{backend: {seed: run id}} of the completed runs."""
    with open_db(db) as con:
        rows = con.execute("SELECT id, backend, seed FROM runs WHERE status = 'completed'")
        out = {FP32: {}, BF16: {}}
        for run_id, backend, seed in rows:
            if backend in out:
                out[backend][seed] = run_id
    return out


def paritylab_seconds(db, runs, seeds):
    """{backend: mean wall seconds of a run} of the compared runs."""
    with open_db(db) as con:
        return {b: float(np.mean([con.execute("SELECT wall_seconds FROM runs WHERE id = ?",
                                              (runs[b][s],)).fetchone()[0] or math.nan
                                  for s in seeds])) for b in (FP32, BF16)}


def export_start(args, db, run_id, folder, with_data):
    """`paritylab-cli export-init` of one run into `folder`, unless it is there already."""
    if os.path.exists(os.path.join(folder, "manifest.json")):
        return
    if os.path.exists(folder):
        shutil.rmtree(folder)  # an export that was interrupted
    command = [args.cli, "export-init", db, "--run", str(run_id), "--out", folder]
    if with_data:
        command.append("--data")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"`{' '.join(command)}` failed: {result.stderr.strip()}")


def decode(blob, dtype):
    """A zlib-compressed little-endian array of the results database."""
    return np.frombuffer(zlib.decompress(blob), dtype)


def read_paritylab_run(con, run_id):
    """One run's final accuracy, step losses (NaN at steps not stored), test predictions and
    final weights by name."""
    accuracy, = con.execute("SELECT final_accuracy FROM runs WHERE id = ?", (run_id,)).fetchone()
    stored = con.execute("SELECT step, train_loss FROM steps WHERE run_id = ?",
                         (run_id,)).fetchall()
    if not any(step == 1 for step, _ in stored):
        fail(f"run {run_id}: step 1 is not stored (a run of more than 2000 steps keeps every k-th "
             "step): use fewer epochs or a smaller --train-size")
    losses = np.full(max(step for step, _ in stored), math.nan)
    for step, loss in stored:
        losses[step - 1] = math.nan if loss is None else loss
    examples, blob = con.execute("SELECT examples, predicted FROM predictions WHERE run_id = ?",
                                 (run_id,)).fetchone()
    predicted = decode(blob, "<u2").astype(np.int64)
    if len(predicted) != examples:
        fail(f"run {run_id}: {len(predicted)} predictions, the database says {examples}")
    epoch, = con.execute("SELECT max(epoch) FROM weights WHERE run_id = ?", (run_id,)).fetchone()
    weights = {}
    for layer, count, data in con.execute(
            "SELECT layer, count, data FROM weights WHERE run_id = ? AND epoch = ? "
            "ORDER BY position", (run_id, epoch)):
        weights[layer] = decode(data, "<f4")
        if len(weights[layer]) != count:
            fail(f"run {run_id}: weights of {layer}: {len(weights[layer])} values, not {count}")
    return {"accuracy": accuracy, "losses": losses, "predicted": predicted, "weights": weights}


def read_paritylab(db, runs, seeds):
    """{backend: {seed: run}} from the database, and the test set's labels."""
    with open_db(db) as con:
        examples, blob = con.execute(
            "SELECT examples, labels FROM test_set WHERE id = 1").fetchone()
        labels = decode(blob, "<u2").astype(np.int64)
        if len(labels) != examples:
            fail(f"test_set: {len(labels)} labels, the database says {examples}")
        return ({b: {s: read_paritylab_run(con, runs[b][s]) for s in seeds} for b in (FP32, BF16)},
                labels)


# --- an exported start -------------------------------------------------------------------------

def load_manifest(folder):
    """manifest.json of an export, checked for what this script can reproduce in PyTorch."""
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    if manifest.get("format") != "paritylab-run-start" or manifest.get("version") != 1:
        fail(f"{folder}: not a version-1 paritylab-run-start export")
    opt, schedule = manifest["optimizer"], manifest.get("schedule", {"kind": "constant"})
    problems = []
    if manifest.get("model") != "small-cnn":
        problems.append(f"model {manifest.get('model')}")
    if opt.get("kind") != "adamw":
        problems.append(f"optimizer {opt.get('kind')}")
    if schedule.get("kind") != "constant":
        problems.append(f"schedule {schedule.get('kind')}")
    if manifest.get("grad_clip", 0.0) or manifest.get("augment", False):
        problems.append("gradient clipping or augmentation")
    if manifest.get("freeze_epochs", 0):
        problems.append("frozen epochs")
    if manifest.get("nudged_first_weight", False):
        problems.append("the chaos floor's nudged first weight")
    if problems:
        fail(f"{folder}: only small-cnn, AdamW, a constant learning rate, no clipping, "
             f"augmentation, freezing or nudging are reproduced in PyTorch; the export has "
             f"{', '.join(problems)}")
    return manifest


def load_data(folder, manifest):
    """The exported train and test images (float32, normalised) and labels (int64)."""
    files = manifest.get("data")
    if not files:
        fail(f"{folder}: the export holds no data (export-init --data)")
    out = {}
    for key in ("train_images", "train_labels", "test_images", "test_labels"):
        array = np.load(os.path.join(folder, files[key]))
        out[key] = array.astype(np.int64) if key.endswith("labels") else array.astype(np.float32)
    return out


def batch_order(folder, manifest):
    """[epochs, n] example indices: step i of an epoch trains on order[e][i*B:(i+1)*B]."""
    order = np.load(os.path.join(folder, manifest["batch_order"])).astype(np.int64)
    if order.shape != (manifest["epochs"], manifest["train_examples"]):
        fail(f"{folder}: batch order shaped {list(order.shape)}, expected "
             f"[{manifest['epochs']}, {manifest['train_examples']}]")
    return order


def load_start(torch, model, folder, manifest):
    """Copies the exported initial parameters into `model`: trained ones by order, each shape
    checked; batch-norm buffers by position where their shapes match (else torch's 0 and 1)."""
    entries = manifest["parameters"]
    trained = [e for e in entries if e.get("trained", True)]
    buffers = [e for e in entries if not e.get("trained", True)]
    params = list(model.named_parameters())
    if len(trained) != len(params):
        fail(f"{folder}: {len(trained)} trained parameters exported, PyTorch's small-cnn has "
             f"{len(params)}")
    names = []
    with torch.no_grad():
        for entry, (torch_name, p) in zip(trained, params):
            values = np.load(os.path.join(folder, entry["file"]))
            if list(values.shape) != list(p.shape) or list(entry["shape"]) != list(p.shape):
                fail(f"{folder}: {entry['name']} is shaped {list(values.shape)} (manifest "
                     f"{entry['shape']}), PyTorch's {torch_name} {list(p.shape)}")
            p.copy_(torch.from_numpy(values.astype(np.float32)))
            names.append(entry["name"])
        torch_buffers = [b for n, b in model.named_buffers()
                         if not n.endswith("num_batches_tracked")]
        for entry, b in zip(buffers, torch_buffers):
            values = np.load(os.path.join(folder, entry["file"]))
            if list(values.shape) == list(b.shape):
                b.copy_(torch.from_numpy(values.astype(np.float32)))
    return names


# --- PyTorch -----------------------------------------------------------------------------------

def autocast(torch, bf16):
    """bf16 autocast on the CPU, or nothing."""
    if bf16:
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return torch.autocast("cpu", enabled=False)


def evaluate(torch, model, data, bf16):
    """Predicted class per test example (eval mode, batches of 1000) and the accuracy."""
    model.eval()
    x, y = torch.from_numpy(data["test_images"]), data["test_labels"]
    predicted = []
    with torch.no_grad():
        for start in range(0, len(y), EVAL_BATCH):
            with autocast(torch, bf16):
                logits = model(x[start:start + EVAL_BATCH])
            predicted.append(logits.float().argmax(1).numpy())
    predicted = np.concatenate(predicted).astype(np.int64)
    return predicted, float(np.mean(predicted == y))


def step1_loss_fp32_batch_norm(torch, model, x, y):
    """The first step's loss under bf16 autocast with each batch norm computed in fp32 on its bf16
    input and rounded to bf16: PyTorch's CPU batch norm sums the statistics of bf16 input less
    exactly than of fp32 input (mean and 1/std off by up to ~2e-5 relative, against ~1e-7),
    which alone moves the first loss by about 1e-4."""
    nn = torch.nn

    class Fp32BatchNorm(nn.Module):
        def __init__(self, bn):
            super().__init__()
            self.bn = bn

        def forward(self, h):
            with torch.autocast("cpu", enabled=False):
                return self.bn(h.float()).to(h.dtype)

    probe = copy.deepcopy(model)
    for i, layer in enumerate(probe):
        if isinstance(layer, nn.BatchNorm2d):
            probe[i] = Fp32BatchNorm(layer)
    probe.train()
    with torch.no_grad(), autocast(torch, True):
        return torch.nn.functional.cross_entropy(probe(x), y).item()


def train_torch(torch, folder, manifest, data, bf16):
    """One PyTorch run from an exported start: every step's loss, the final accuracy and test
    predictions, the final parameters by ParityLab's names, and the seconds it took; under
    autocast also the first loss with batch norm in fp32 (step1_loss_fp32_batch_norm)."""
    torch.manual_seed(0)
    model = small_cnn(torch.nn)
    names = load_start(torch, model, folder, manifest)
    opt = manifest["optimizer"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt["lr"],
                                  betas=(opt.get("beta1", 0.9), opt.get("beta2", 0.999)),
                                  eps=opt.get("eps", 1e-8),
                                  weight_decay=opt.get("weight_decay", 0.0))
    order, batch = batch_order(folder, manifest), manifest["batch_size"]
    x, y = torch.from_numpy(data["train_images"]), torch.from_numpy(data["train_labels"])
    if len(y) != manifest["train_examples"]:
        fail(f"{folder}: {manifest['train_examples']} training examples, the data has {len(y)}")
    first = torch.from_numpy(order[0][:batch])
    step1_fp32_bn = (step1_loss_fp32_batch_norm(torch, model, x[first], y[first]) if bf16
                     else math.nan)
    losses = []
    start = time.perf_counter()
    model.train()
    for epoch_order in order:
        for i in range(0, len(epoch_order), batch):
            idx = torch.from_numpy(epoch_order[i:i + batch])
            optimizer.zero_grad(set_to_none=True)
            with autocast(torch, bf16):
                loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    predicted, accuracy = evaluate(torch, model, data, bf16)
    weights = {n: p.detach().numpy().ravel().copy() for n, p in zip(names, model.parameters())}
    return {"accuracy": accuracy, "losses": np.array(losses, np.float64),
            "predicted": predicted, "weights": weights,
            "seconds": time.perf_counter() - start, "step1_fp32_bn": step1_fp32_bn}


def saved_torch_run(path, key):
    """A PyTorch run saved by an earlier validation with the same settings, or None."""
    if not os.path.exists(path):
        return None
    with np.load(path) as f:
        if str(f["key"]) != key:
            return None
        return {"accuracy": float(f["accuracy"]), "losses": f["losses"],
                "predicted": f["predicted"], "seconds": float(f["seconds"]),
                "step1_fp32_bn": float(f["step1_fp32_bn"]),
                "weights": {k[2:]: f[k] for k in f.files if k.startswith("w:")}}


def save_torch_run(path, key, run):
    """Keeps a PyTorch run in the work folder (written whole, then renamed)."""
    np.savez(path + ".tmp.npz", key=key, accuracy=run["accuracy"], losses=run["losses"],
             predicted=run["predicted"], seconds=run["seconds"],
             step1_fp32_bn=run["step1_fp32_bn"], **{"w:" + k: v for k, v in run["weights"].items()})
    os.replace(path + ".tmp.npz", path)


def torch_runs(args, torch, starts, data):
    """{FP32 or BF16: {seed: run}}: PyTorch fp32 and autocast bf16 from every seed's start."""
    out = {FP32: {}, BF16: {}}
    for seed, folder in starts.items():
        manifest = load_manifest(folder)
        key = json.dumps([SAVED_FORMAT, torch.__version__, manifest["run"], manifest["optimizer"],
                          manifest["epochs"], manifest["batch_size"]], sort_keys=True)
        for backend, bf16 in ((FP32, False), (BF16, True)):
            path = os.path.join(args.work, f"pytorch-seed-{seed}-{'bf16' if bf16 else 'fp32'}.npz")
            run = saved_torch_run(path, key)
            if run is None:
                run = train_torch(torch, folder, manifest, data, bf16)
                save_torch_run(path, key, run)
                progress(args, f"PyTorch {'bf16 autocast' if bf16 else 'fp32'} seed {seed}: "
                               f"accuracy {100 * run['accuracy']:.2f}%, {run['seconds']:.1f} s")
            out[backend][seed] = run
    return out


# --- statistics --------------------------------------------------------------------------------

def t_quantile(df):
    """The 97.5% quantile of Student's t with `df` degrees of freedom."""
    try:
        from scipy import stats
        return float(stats.t.ppf(0.975, df))
    except ImportError:
        return 1.959964 * (1 + 1 / (4 * df)) + 2.6 / df ** 2  # a close bound without scipy


def mean_ci(values):
    """Mean and 95% t confidence interval of per-seed values."""
    v = np.asarray(values, np.float64)
    half = t_quantile(len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return {"mean": float(v.mean()), "ci": [float(v.mean() - half), float(v.mean() + half)]}


def bootstrap_ratio(numerator, denominator):
    """mean(numerator) / mean(denominator) with a 95% percentile bootstrap CI over seeds."""
    a, b = np.asarray(numerator, np.float64), np.asarray(denominator, np.float64)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    idx = rng.integers(0, len(a), size=(BOOTSTRAP_RESAMPLES, len(a)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = a[idx].mean(1) / b[idx].mean(1)
        ratio = a.mean() / b.mean()
    lo, hi = np.nanpercentile(ratios, [2.5, 97.5]) if np.isfinite(ratios).any() else (math.nan,) * 2
    return {"ratio": float(ratio), "ci": [float(lo), float(hi)]}


def churn(a, b):
    """The share of test examples whose predicted class differs between two runs."""
    return float(np.mean(a["predicted"] != b["predicted"]))


def relative_distance(w, reference):
    """||w - reference|| / ||reference||."""
    return float(np.linalg.norm(w - reference) / np.linalg.norm(reference))


# --- the comparison ----------------------------------------------------------------------------
# `runs` is {engine: {backend: {seed: run}}}, engine "paritylab" or "pytorch"; PyTorch's fp32 and
# autocast runs stand under cpu-fp32 and gpu-amp-bf16.

def per_engine(runs, seeds, of_seed):
    """{engine: [of_seed(that engine's runs, seed) for every seed]}."""
    return {e: np.array([of_seed(r, s) for s in seeds], np.float64) for e, r in runs.items()}


def fp32_agreement(runs, seeds):
    """ParityLab cpu-fp32 against PyTorch fp32, seed by seed."""
    pl, pt = runs["paritylab"][FP32], runs["pytorch"][FP32]
    diffs = []
    for s in seeds:
        a, b = pl[s]["losses"], pt[s]["losses"]
        if len(a) > len(b):
            fail(f"seed {s}: ParityLab stored step {len(a)}, PyTorch trained {len(b)} steps")
        diffs.append(np.abs(np.pad(a, (0, len(b) - len(a)), constant_values=math.nan) - b))
    diffs = np.array(diffs)
    last = np.flatnonzero(~np.isnan(diffs).any(0))[-1]  # the last step stored for every seed

    def spread(d):
        return {"mean": float(np.nanmean(d)), "max": float(np.nanmax(d))}
    accuracy = per_engine(runs, seeds, lambda r, s: 100 * r[FP32][s]["accuracy"])
    return {"accuracy_percent": {e: float(v.mean()) for e, v in accuracy.items()},
            "loss_diff_step1": spread(diffs[:, 0]),
            "loss_diff_steps1_5": spread(diffs[:, :5]),
            "loss_diff_last_step": spread(diffs[:, last]), "last_step": int(last + 1),
            "chaos_churn_percent": 100 * float(np.mean([churn(pl[s], pt[s]) for s in seeds]))}


def bf16_effect(runs, seeds):
    """bf16 - fp32 accuracy in points per engine and ParityLab's minus PyTorch's, by seed."""
    effect = per_engine(runs, seeds,
                        lambda r, s: 100 * (r[BF16][s]["accuracy"] - r[FP32][s]["accuracy"]))
    bf16 = per_engine(runs, seeds, lambda r, s: 100 * r[BF16][s]["accuracy"])
    return {"paritylab": mean_ci(effect["paritylab"]), "pytorch": mean_ci(effect["pytorch"]),
            "difference": mean_ci(effect["paritylab"] - effect["pytorch"]),
            "bf16_accuracy_percent": {e: float(v.mean()) for e, v in bf16.items()}}


def precision_churn(runs, seeds):
    """Per engine the share of test predictions that a seed's bf16 run changes; their ratio."""
    per_seed = per_engine(runs, seeds, lambda r, s: churn(r[FP32][s], r[BF16][s]))
    return {"paritylab_percent": 100 * float(per_seed["paritylab"].mean()),
            "pytorch_percent": 100 * float(per_seed["pytorch"].mean()),
            **bootstrap_ratio(per_seed["paritylab"], per_seed["pytorch"])}


def step1_bf16(runs, seeds):
    """|ParityLab gpu-amp-bf16 - PyTorch autocast| at step 1 (and against autocast with batch
    norm in fp32), and |bf16 - fp32| per engine."""
    pl, pt = runs["paritylab"][BF16], runs["pytorch"][BF16]
    own = per_engine(runs, seeds,
                     lambda r, s: abs(r[BF16][s]["losses"][0] - r[FP32][s]["losses"][0]))
    return {"bf16_engines": float(np.mean([abs(pl[s]["losses"][0] - pt[s]["losses"][0])
                                           for s in seeds])),
            "bf16_engines_fp32_batch_norm": float(np.mean(
                [abs(pl[s]["losses"][0] - pt[s]["step1_fp32_bn"]) for s in seeds])),
            "bf16_vs_fp32": {e: float(v.mean()) for e, v in own.items()}}


def weight_distances(runs, seeds, names):
    """Per parameter tensor: mean over seeds of ||w_bf16 - w_fp32|| / ||w_fp32|| per engine."""
    out = {}
    for name in names:
        for engine, r in runs.items():
            if any(name not in r[b][s]["weights"] for b in (FP32, BF16) for s in seeds):
                fail(f"{LABEL[engine]} has no final weights of {name}")
        distance = per_engine(runs, seeds, lambda r, s: relative_distance(
            r[BF16][s]["weights"][name], r[FP32][s]["weights"][name]))
        row = {e: float(v.mean()) for e, v in distance.items()}
        row["ratio"] = row["paritylab"] / row["pytorch"] if row["pytorch"] else math.nan
        out[name] = row
    return out


# --- output ------------------------------------------------------------------------------------

def interval(stat, digits=2, sign="+"):
    """A mean and its confidence interval as `+m  [+lo, +hi]`."""
    return (f"{stat['mean']:{sign}.{digits}f}  [{stat['ci'][0]:{sign}.{digits}f}, "
            f"{stat['ci'][1]:{sign}.{digits}f}]")


def finite_or_none(value):
    """`value` with every NaN or infinity replaced by None (null in strict JSON)."""
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_or_none(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def print_header(h):
    """What was compared, on what, and how long a run took."""
    print(f"\nParityLab {BF16} vs PyTorch bf16 autocast on {h['cpu']} "
          f"(avx512_bf16 {'yes' if h['avx512_bf16'] else 'no'}), torch {h['torch']}, "
          f"oneDNN bf16 convolution {h['onednn_bf16_conv']}")
    print(f"small-cnn, Fashion-MNIST {h['train_size']} train / {h['test_size']} test, "
          f"{h['epochs']} epochs, batch {h['batch_size']}, AdamW lr {h['lr']:g}, "
          f"{len(h['seeds'])} seeds")
    t = h["seconds_per_run"]
    print(f"seconds per run: ParityLab {FP32} {t['paritylab'][FP32]:.1f}, {BF16} "
          f"{t['paritylab'][BF16]:.1f}; PyTorch (1 thread) fp32 {t['pytorch'][FP32]:.1f}, "
          f"bf16 autocast {t['pytorch'][BF16]:.1f}")
    if not h["test_labels_match"]:
        print("WARNING: the database's test labels differ from the exported ones")


def print_fp32_agreement(a):
    """ParityLab cpu-fp32 against PyTorch fp32."""
    print(f"\nfp32 agreement (ParityLab {FP32} vs PyTorch fp32, same start and batches)")
    print(f"  final accuracy                  ParityLab {a['accuracy_percent']['paritylab']:.2f}%  "
          f"PyTorch {a['accuracy_percent']['pytorch']:.2f}%")
    for key, label in (("loss_diff_step1", "step 1"), ("loss_diff_steps1_5", "steps 1-5"),
                       ("loss_diff_last_step", f"step {a['last_step']}")):
        print(f"  |loss difference| {label:13s} mean {a[key]['mean']:.2e}  max {a[key]['max']:.2e}")
    print(f"  test predictions that differ    {a['chaos_churn_percent']:.2f}%  (the chaos level)")


def print_bf16_effect(e):
    """bf16 - fp32 accuracy per engine and the difference."""
    print("\nbf16 effect on accuracy (bf16 - fp32, points; mean and 95% t CI, paired by seed)")
    print(f"  ParityLab {BF16:21s} {interval(e['paritylab'])}   (bf16 accuracy "
          f"{e['bf16_accuracy_percent']['paritylab']:.2f}%)")
    print(f"  PyTorch autocast bf16           {interval(e['pytorch'])}   (bf16 accuracy "
          f"{e['bf16_accuracy_percent']['pytorch']:.2f}%)")
    print(f"  ParityLab - PyTorch             {interval(e['difference'])}")


def print_precision_churn(c):
    """Same-seed fp32-vs-bf16 churn per engine and the ratio."""
    print("\nsame-seed precision churn (test predictions that differ between fp32 and bf16)")
    print(f"  ParityLab                       {c['paritylab_percent']:.2f}%")
    print(f"  PyTorch                         {c['pytorch_percent']:.2f}%")
    print(f"  ratio ParityLab / PyTorch       {c['ratio']:.3f}  [{c['ci'][0]:.3f}, "
          f"{c['ci'][1]:.3f}]  (95% bootstrap over seeds, {BOOTSTRAP_RESAMPLES} resamples)")


def print_step1_bf16(s):
    """The first step's bf16 loss of the two engines."""
    print("\nstep-1 bf16 loss, mean over seeds (same weights, same batch)")
    print(f"  |ParityLab - PyTorch autocast|                   {s['bf16_engines']:.2e}")
    print(f"  |ParityLab - PyTorch autocast, batch norm fp32|  "
          f"{s['bf16_engines_fp32_batch_norm']:.2e}  (PyTorch's CPU batch norm sums the "
          "statistics of bf16 input less exactly)")
    print(f"  |bf16 - fp32| for scale                          ParityLab "
          f"{s['bf16_vs_fp32']['paritylab']:.2e}, PyTorch {s['bf16_vs_fp32']['pytorch']:.2e}")


def print_weight_distances(rows):
    """Per parameter tensor: bf16-vs-fp32 final weight distance."""
    print("\nper-layer weight distance ||w_bf16 - w_fp32|| / ||w_fp32|| (final weights, same seed, "
          "mean over seeds)")
    print(f"  {'parameter':16s} {'ParityLab':>10s} {'PyTorch':>10s} {'ratio':>7s}")
    for name, w in rows.items():
        print(f"  {name:16s} {w['paritylab']:10.4f} {w['pytorch']:10.4f} {w['ratio']:7.3f}")


def print_table(r):
    """The results as a table, section by section."""
    print_header(r["setup"])
    print_fp32_agreement(r["fp32_agreement"])
    print_bf16_effect(r["bf16_effect"])
    print_precision_churn(r["precision_churn"])
    print_step1_bf16(r["step1_bf16_loss"])
    print_weight_distances(r["weight_distance"])


def setup(args, torch, seeds, data, db_labels, seconds):
    """What was compared, on what: the header's figures."""
    cpu, avx512_bf16 = cpu_description()
    return {"cpu": cpu, "avx512_bf16": avx512_bf16, "torch": torch.__version__,
            "onednn_bf16_conv": onednn_bf16_kernel(torch), "seeds": seeds,
            "train_size": args.train_size, "test_size": args.test_size, "epochs": args.epochs,
            "batch_size": args.batch_size, "lr": args.lr,
            "test_labels_match": bool(np.array_equal(db_labels, data["test_labels"])),
            "seconds_per_run": seconds}


def main():
    """Runs the study, exports its starts, trains PyTorch from them and compares."""
    args = parse_args()
    if not os.access(args.cli, os.X_OK):
        fail(f"{args.cli}: not built (./setup.sh build)")
    os.makedirs(args.work, exist_ok=True)
    spec, db = os.path.join(args.work, "study.json"), os.path.join(args.work, "paritylab.db")
    write_spec(args, spec)
    run_study(args, spec, db)

    run_ids = completed_runs(db)
    seeds = [s for s in range(args.seeds) if s in run_ids[FP32] and s in run_ids[BF16]]
    if len(seeds) < args.seeds:
        progress(args, f"only {len(seeds)} of {args.seeds} seeds have both runs completed; "
                       "comparing those")
    if len(seeds) < 2:
        fail("fewer than 2 seeds with both runs completed")
    starts = {}
    for i, s in enumerate(seeds):
        starts[s] = os.path.join(args.work, f"init-seed-{s}")
        export_start(args, db, run_ids[FP32][s], starts[s], with_data=(i == 0))
    data = load_data(starts[seeds[0]], load_manifest(starts[seeds[0]]))

    same_blas_kernels(args.cli)
    torch = import_torch()
    pt = torch_runs(args, torch, starts, data)
    pl, db_labels = read_paritylab(db, run_ids, seeds)
    runs = {"paritylab": pl, "pytorch": pt}
    seconds = {"paritylab": paritylab_seconds(db, run_ids, seeds),
               "pytorch": {b: float(np.mean([pt[b][s]["seconds"] for s in seeds]))
                           for b in (FP32, BF16)}}
    result = {
        "setup": setup(args, torch, seeds, data, db_labels, seconds),
        "fp32_agreement": fp32_agreement(runs, seeds),
        "bf16_effect": bf16_effect(runs, seeds),
        "precision_churn": precision_churn(runs, seeds),
        "step1_bf16_loss": step1_bf16(runs, seeds),
        "weight_distance": weight_distances(runs, seeds, list(pl[FP32][seeds[0]]["weights"])),
    }
    if args.json:
        print(json.dumps(finite_or_none(result), indent=2))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
