#!/usr/bin/python3
"""ParityLab vs PyTorch on the same model, same data, same CPU (issue #6).

Trains the identical `small-cnn` (conv3x3 1->32 pad 1, BN, ReLU, maxpool 2; conv3x3 32->64 pad 1,
BN, ReLU, maxpool 2; linear 3136->128, ReLU, linear 128->10) on real Fashion-MNIST batches of 128
with AdamW (lr 1e-3, no weight decay) on ONE thread, in PyTorch and with `paritylab-cli bench`,
alternating the two several times so that machine noise cancels, and prints both throughputs and
their ratios. Then, unless --no-study, times the `quick` study on 1 and on 2 threads (runs/hour).

Optional: needs Debian's python3-torch (`apt-get install python3-torch`); run with /usr/bin/python3.
Usage: bench/compare_pytorch.py [--cli build/app/paritylab-cli] [--rounds 5] [--steps 50]
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FASHION = "/usr/share/datasets/fashion-mnist"


def load_fashion_mnist(limit):
    """First `limit` training images [n, 1, 28, 28] as float32 normalised like ParityLab, labels."""
    with gzip.open(os.path.join(FASHION, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:limit]
    with gzip.open(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)[:limit]
    x = images.astype(np.float32) / 255.0
    x = (x - x.mean()) / x.std()
    return x, labels.astype(np.int64)


def torch_images_per_second(torch, x, y, batch, warmup, steps):
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    loss_fn = nn.CrossEntropyLoss()
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    order = torch.randperm(len(ys))
    cursor = 0

    def step():
        nonlocal cursor
        idx = order[cursor:cursor + batch]
        cursor = (cursor + batch) % (len(ys) - batch)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(xs[idx]), ys[idx])
        loss.backward()
        optimizer.step()

    model.train()
    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * batch / (time.perf_counter() - start)


def paritylab_bench(cli, backend, batch, warmup, steps):
    out = subprocess.run(
        [cli, "bench", "--model", "small-cnn", "--backend", backend, "--batch", str(batch),
         "--warmup", str(warmup), "--steps", str(steps), "--threads", "1", "--json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "paritylab-cli"))
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50, help="timed steps per measurement")
    parser.add_argument("--no-study", action="store_true", help="skip the study-level figure")
    parser.add_argument("--study", default=os.path.join(ROOT, "resources", "studies", "quick.json"))
    args = parser.parse_args()

    if not os.access(args.cli, os.X_OK):
        sys.exit(f"compare_pytorch: {args.cli}: not built (./setup.sh build)")
    # Same BLAS kernels for both: PyTorch's linear layers use the same OpenBLAS, whose CPU
    # detection may fall back to generic kernels that ParityLab re-selects (nn::configureBlas).
    # OpenBLAS reads this when it loads, so it is set before torch is imported.
    core = paritylab_bench(args.cli, "cpu-fp32", args.batch, 0, 1)["blas_core"]
    os.environ.setdefault("OPENBLAS_CORETYPE", core)
    try:
        import torch
    except ImportError:
        sys.exit("compare_pytorch: PyTorch is missing: apt-get install python3-torch "
                 "(and run with /usr/bin/python3)")
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    x, y = load_fashion_mnist(10000)

    backends = ["cpu-fp32", "gpu-tf32", "tpu-bf16"]
    samples = {"pytorch": [], **{b: [] for b in backends}}
    for r in range(args.rounds):
        samples["pytorch"].append(
            torch_images_per_second(torch, x, y, args.batch, args.warmup, args.steps))
        for b in backends:
            samples[b].append(paritylab_bench(args.cli, b, args.batch, args.warmup,
                                              args.steps)["images_per_second"])
        print(f"round {r + 1}/{args.rounds}: " +
              ", ".join(f"{k} {v[-1]:.0f}" for k, v in samples.items()), flush=True)

    median = {k: statistics.median(v) for k, v in samples.items()}
    print(f"\nsmall-cnn, batch {args.batch}, one thread, AdamW; images/s, median of "
          f"{args.rounds} alternated rounds (torch {torch.__version__}, OpenBLAS kernels "
          f"{os.environ['OPENBLAS_CORETYPE']} for both)")
    for k, v in median.items():
        label = "PyTorch fp32" if k == "pytorch" else f"ParityLab {k} (emulated)"
        print(f"  {label:34s} {v:9.1f}")
    print(f"  ParityLab cpu-fp32 / PyTorch fp32    {median['cpu-fp32'] / median['pytorch']:9.2f}x"
          "  (target >= 1.25)")
    for b in backends[1:]:
        print(f"  {b} / cpu-fp32 {'':19s} {median[b] / median['cpu-fp32']:9.2f}x  (target >= 0.9)")

    if args.no_study:
        return
    with open(args.study) as f:
        spec = json.load(f)
    seeds = spec["seeds"] if isinstance(spec["seeds"], int) else len(spec["seeds"])
    runs = seeds * len(spec["backends"])
    print(f"\nstudy {os.path.basename(args.study)}: {runs} runs")
    per_hour = {}
    for threads in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([args.cli, "run", args.study, "--db", os.path.join(tmp, "s.db"),
                            "--threads", str(threads)], check=True, stdout=subprocess.DEVNULL)
            seconds = time.perf_counter() - start
        per_hour[threads] = runs / seconds * 3600
        print(f"  {threads} thread{'s' if threads > 1 else ' '}  {seconds:7.1f} s  "
              f"{per_hour[threads]:8.0f} runs/hour")
    print(f"  2 threads / 1 thread  {per_hour[2] / per_hour[1]:.2f}x  (target >= 1.8)")


if __name__ == "__main__":
    main()
