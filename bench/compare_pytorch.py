#!/usr/bin/python3
"""ParityLab vs PyTorch on the same model, same data, same CPU.

Trains the identical model on batches of 128 with AdamW (lr 1e-3, no weight decay) on ONE thread,
in PyTorch and with `paritylab-cli bench`, alternating the two several times so that machine noise
cancels, and prints both throughputs and their ratios. Models (--model):
  small-cnn  conv3x3 1->32 pad 1, BN, ReLU, maxpool 2; conv3x3 32->64 pad 1, BN, ReLU, maxpool 2;
             linear 3136->128, ReLU, linear 128->10
  resnet18   torchvision's BasicBlock ResNet [2, 2, 2, 2], widths w, 2w, 4w, 8w (--width w: 16, or
             64 for the real ResNet-18), 3x3 stride-1 stem without max-pool, global average pool,
             fc 8w -> 10; every parameter's name and shape is checked against
             ParityLab's before timing
Inputs (--input): 28 = real Fashion-MNIST 1x28x28 batches; 32x3 = random 3x32x32 images (CIFAR
shape, timing only), the same kind of images for both. Then, unless --no-study (implied for
resnet18), times the `quick` study on 1 and on 2 threads (runs/hour).

Optional: needs Debian's python3-torch (`apt-get install python3-torch`); run with /usr/bin/python3.
Usage: bench/compare_pytorch.py [--cli build/app/paritylab-cli] [--rounds 5] [--steps 50]
                                [--model small-cnn|resnet18] [--width 16|64] [--input 28|32x3]
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


def random_images(limit, channels, side):
    """`limit` random N(0, 1) images [n, channels, side, side] and labels cycling through 10."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((limit, channels, side, side), dtype=np.float32)
    return x, (np.arange(limit) % 10).astype(np.int64)


def small_cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))


def resnet18(nn, channels, width, classes=10):
    """torchvision.models.resnet18's structure and names, with a 3x3 stride-1 stem, no max-pool."""

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                nn.BatchNorm2d(cout))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            identity = x if self.downsample is None else self.downsample(x)
            return self.relu(out + identity)

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, width, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            cin = width
            for stage in range(4):
                cout = width << stage
                blocks = [BasicBlock(cin, cout, 1 if stage == 0 else 2), BasicBlock(cout, cout, 1)]
                setattr(self, f"layer{stage + 1}", nn.Sequential(*blocks))
                cin = cout
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(cin, classes)

        def forward(self, x):
            x = self.relu(self.bn1(self.conv1(x)))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet18()


def check_same_model(model, paritylab_shapes):
    """Every parameter and batch-norm buffer, by name and shape, equals ParityLab's; exits if not."""
    ours = {k: list(v) for k, v in paritylab_shapes.items()}
    theirs = {k: list(v.shape) for k, v in model.state_dict().items()
              if not k.endswith("num_batches_tracked")}
    if ours != theirs:
        diff = [k for k in sorted(set(ours) | set(theirs)) if ours.get(k) != theirs.get(k)]
        sys.exit("compare_pytorch: the models differ at " +
                 ", ".join(f"{k}: ParityLab {ours.get(k)} vs PyTorch {theirs.get(k)}"
                           for k in diff[:8]))
    return sum(int(np.prod(v)) for v in theirs.values())


def torch_images_per_second(torch, model, x, y, batch, warmup, steps):
    nn = torch.nn
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


def paritylab_bench(cli, args, backend, warmup, steps):
    command = [cli, "bench", "--model", args.model, "--backend", backend, "--batch",
               str(args.batch), "--warmup", str(warmup), "--steps", str(steps), "--threads", "1",
               "--json"]
    if args.model == "resnet18":
        command += ["--width", str(args.width)]
    if args.input == "32x3":
        command += ["--input", "32x32x3"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "paritylab-cli"))
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50, help="timed steps per measurement")
    parser.add_argument("--model", choices=["small-cnn", "resnet18"], default="small-cnn")
    parser.add_argument("--width", type=int, default=16, help="resnet18: channels of stage 1")
    parser.add_argument("--input", choices=["28", "32x3"], default="28",
                        help="28: Fashion-MNIST 1x28x28; 32x3: random 3x32x32 (resnet18)")
    parser.add_argument("--backends", default="cpu-fp32,gpu-tf32,tpu-bf16",
                        help="ParityLab backends, comma-separated; the first is the fp32 one")
    parser.add_argument("--no-study", action="store_true", help="skip the study-level figure")
    parser.add_argument("--study", default=os.path.join(ROOT, "resources", "studies", "quick.json"))
    args = parser.parse_args()

    if not os.access(args.cli, os.X_OK):
        sys.exit(f"compare_pytorch: {args.cli}: not built (./setup.sh build)")
    # Same BLAS kernels for both: PyTorch's linear layers use the same OpenBLAS, whose CPU
    # detection may fall back to generic kernels that ParityLab re-selects (nn::configureBlas).
    # OpenBLAS reads this when it loads, so it is set before torch is imported.
    if args.model == "small-cnn" and (args.input != "28" or args.width != 16):
        sys.exit("compare_pytorch: small-cnn takes Fashion-MNIST 28x28 only (no --input/--width)")
    probe = paritylab_bench(args.cli, args, "cpu-fp32", 0, 1)
    core = probe["blas_core"]
    os.environ.setdefault("OPENBLAS_CORETYPE", core)
    try:
        import torch
    except ImportError:
        sys.exit("compare_pytorch: PyTorch is missing: apt-get install python3-torch "
                 "(and run with /usr/bin/python3)")
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    if args.input == "28":
        x, y = load_fashion_mnist(10000)
    else:
        x, y = random_images(10000, 3, 32)
    torch.manual_seed(0)
    if args.model == "small-cnn":
        model = small_cnn(torch.nn)
        described = "small-cnn"
    else:
        model = resnet18(torch.nn, x.shape[1], args.width)
        count = check_same_model(model, probe["parameter_shapes"])
        described = (f"resnet18 width {args.width} on {x.shape[1]}x{x.shape[2]}x{x.shape[3]}, "
                     f"{count} parameters and buffers, the same names and shapes in both")
        print(described, flush=True)
        args.no_study = True

    backends = args.backends.split(",")
    samples = {"pytorch": [], **{b: [] for b in backends}}
    for r in range(args.rounds):
        samples["pytorch"].append(
            torch_images_per_second(torch, model, x, y, args.batch, args.warmup, args.steps))
        for b in backends:
            samples[b].append(paritylab_bench(args.cli, args, b, args.warmup,
                                              args.steps)["images_per_second"])
        print(f"round {r + 1}/{args.rounds}: " +
              ", ".join(f"{k} {v[-1]:.0f}" for k, v in samples.items()), flush=True)

    # Other tenants of a shared machine only ever slow a round down, so the best round of each
    # is the steadiest estimate of its unloaded speed; the median is printed beside it.
    median = {k: statistics.median(v) for k, v in samples.items()}
    best = {k: max(v) for k, v in samples.items()}
    print(f"\n{described}, batch {args.batch}, one thread, AdamW; images/s, median and best of "
          f"{args.rounds} alternated rounds (torch {torch.__version__}, OpenBLAS kernels "
          f"{os.environ['OPENBLAS_CORETYPE']} for both)")
    print(f"  {'':34s} {'median':>9s} {'best':>9s}")
    for k in samples:
        label = "PyTorch fp32" if k == "pytorch" else f"ParityLab {k} (emulated)"
        print(f"  {label:34s} {median[k]:9.1f} {best[k]:9.1f}")
    fp32 = backends[0]
    ratio = f"ParityLab {fp32} / PyTorch fp32"
    print(f"  {ratio:34s} {median[fp32] / median['pytorch']:8.2f}x {best[fp32] / best['pytorch']:8.2f}x"
          "  (target >= 1.25)")
    for b in backends[1:]:
        ratio = f"{b} / {fp32}"
        print(f"  {ratio:34s} {median[b] / median[fp32]:8.2f}x {best[b] / best[fp32]:8.2f}x"
              "  (target >= 0.9)")

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
