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
  gpt        nanoGPT's GPT (4 layers, 4 heads, 128 wide, 64 tokens, head tied to the token
             embedding, GELU tanh, no dropout, the manual attention path) on windows of the example
             corpus (bench's default text), batch 12, timed in tokens per second; names and shapes
             checked as for resnet18
With --model gpt --anchor N, instead of timing: trains the GPT for N steps with nanoGPT's
shakespeare_char CPU recipe (batch 12, AdamW lr 1e-3 betas (0.9, 0.99) weight decay 0.1, 100
warm-up steps then cosine to 1e-4 at step N, gradient clipping 1.0) in ParityLab (cpu-fp32, a
one-run study) and in PyTorch from the run's exported initial weights on the run's exported windows
(`export-init --data`), and compares the first 20 step losses (relative difference, target <= 1e-4)
and the final validation loss on the same validation windows (target: within 0.05 nats). Both
apply weight decay to every parameter, as ParityLab's AdamW does (nanoGPT exempts biases and
layer norms). --anchor 20 checks the losses; --anchor 2000 is nanoGPT's full CPU run.
Inputs (--input): 28 = real Fashion-MNIST 1x28x28 batches; 32x3 = random 3x32x32 images (CIFAR
shape, timing only), the same kind of images for both. Then, unless --no-study (implied for
resnet18), times the `quick` study on 1 and on 2 threads (runs/hour).

Optional: needs Debian's python3-torch (`apt-get install python3-torch`); run with /usr/bin/python3.
Usage: bench/compare_pytorch.py [--cli build/app/paritylab-cli] [--rounds 5] [--steps 50]
                                [--model small-cnn|resnet18|gpt] [--width 16|64] [--input 28|32x3]
                                [--anchor N]
"""

import argparse
import gzip
import json
import math
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


def gpt(torch, vocab, n_layer=4, n_head=4, n_embd=128, block_size=64):
    """nanoGPT's GPT as model.py writes it (bias on, dropout 0, tied head), GPT-2 initialisation."""
    nn, F = torch.nn, torch.nn.functional

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size)).view(
                1, 1, block_size, block_size), persistent=False)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q, k, v = (z.view(b, t, n_head, c // n_head).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = F.softmax(att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")), dim=-1)
            return self.c_proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(n_embd, 4 * n_embd)
            self.c_proj = nn.Linear(4 * n_embd, n_embd)

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = nn.LayerNorm(n_embd), Attention()
            self.ln_2, self.mlp = nn.LayerNorm(n_embd), Mlp()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, n_embd), wpe=nn.Embedding(block_size, n_embd),
                h=nn.ModuleList([Block() for _ in range(n_layer)]), ln_f=nn.LayerNorm(n_embd)))
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            for name, p in self.named_parameters():
                if p.dim() >= 2:
                    std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
                    torch.nn.init.normal_(p, 0.0, std)
                elif name.endswith(".bias"):
                    torch.nn.init.zeros_(p)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(t))
            for block in self.transformer.h:
                x = block(x)
            return self.lm_head(self.transformer.ln_f(x))

    return Gpt()


def timed_steps(model, step, warmup, steps):
    """Seconds for `steps` calls of step() in training mode, after `warmup` untimed ones."""
    model.train()
    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return time.perf_counter() - start


def torch_tokens_per_second(torch, model, tokens, batch, block, warmup, steps):
    """Random windows of `tokens` (a 1-D int64 tensor), next-token cross-entropy, AdamW."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99),
                                  weight_decay=0.0)
    generator = torch.Generator().manual_seed(0)

    def step():
        starts = torch.randint(len(tokens) - block - 1, (batch,), generator=generator)
        x = torch.stack([tokens[s:s + block] for s in starts])
        y = torch.stack([tokens[s + 1:s + 1 + block] for s in starts])
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
        optimizer.step()

    return steps * batch * block / timed_steps(model, step, warmup, steps)


def check_same_model(model, paritylab_shapes):
    """Every parameter and batch-norm buffer, by name and shape, equals ParityLab's; exits if not."""
    ours = {k: list(v) for k, v in paritylab_shapes.items()}
    # A tied head is one parameter, named once (as the token embedding) in ParityLab.
    theirs = {k: list(v.shape) for k, v in model.state_dict().items()
              if not k.endswith("num_batches_tracked") and k != "lm_head.weight"}
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

    return steps * batch / timed_steps(model, step, warmup, steps)


def paritylab_bench(cli, args, backend, warmup, steps):
    command = [cli, "bench", "--model", args.model, "--backend", backend, "--batch",
               str(args.batch), "--warmup", str(warmup), "--steps", str(steps), "--threads", "1",
               "--json"]
    if args.model == "resnet18":
        command += ["--width", str(args.width)]
    if args.model == "gpt":
        command[command.index("--batch") + 1] = str(GPT_BATCH)
    if args.input == "32x3":
        command += ["--input", "32x32x3"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


GPT_BATCH = 12  # nanoGPT's shakespeare_char CPU configuration


def gpt_anchor(torch, cli, corpus, steps):
    """ParityLab's cpu-fp32 GPT run against PyTorch from the same start on the same windows."""
    import sqlite3

    recipe = {"lr": 1e-3, "beta2": 0.99, "weight_decay": 0.1, "warmup": 100, "min_lr": 0.1,
              "clip": 1.0}
    spec = {"version": 1, "name": "gpt-anchor", "dataset": {"source": "text:" + corpus},
            "model": "gpt", "n_layer": 4, "n_head": 4, "n_embd": 128, "block_size": 64,
            "steps": steps, "batch_size": GPT_BATCH, "eval_batch_size": 16,
            "optimizer": {"kind": "adamw", "lr": recipe["lr"], "beta2": recipe["beta2"],
                          "weight_decay": recipe["weight_decay"]},
            "schedule": {"kind": "cosine", "warmup_steps": recipe["warmup"],
                         "min_lr_fraction": recipe["min_lr"]},
            "grad_clip": recipe["clip"], "backends": ["cpu-fp32"], "seeds": 1,
            "chaos_floor": False, "threads": 1}
    with tempfile.TemporaryDirectory() as tmp:
        spec_path, db = os.path.join(tmp, "anchor.json"), os.path.join(tmp, "anchor.db")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        start = time.perf_counter()
        subprocess.run([cli, "run", spec_path, "--db", db], check=True, stdout=subprocess.DEVNULL)
        ours_seconds = time.perf_counter() - start
        out = os.path.join(tmp, "start")
        subprocess.run([cli, "export-init", db, "--run", "1", "--out", out, "--data"], check=True,
                       stdout=subprocess.DEVNULL)
        with sqlite3.connect(db) as con:
            # The run keeps every step's loss up to its sampling limit; steps count from 1.
            ours_losses = {step - 1: loss for step, loss in con.execute(
                "SELECT step, train_loss FROM steps ORDER BY step")}
            ours_val = con.execute("SELECT final_test_loss FROM runs").fetchone()[0]
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        params = {p["name"]: np.load(os.path.join(out, p["file"])) for p in manifest["parameters"]}
        offsets = np.load(os.path.join(out, "window_offsets.npy")).astype(np.int64)
        train = torch.from_numpy(np.load(os.path.join(out, "train_tokens.npy")).astype(np.int64))
        val_x = torch.from_numpy(np.load(os.path.join(out, "validation_inputs.npy")).astype(np.int64))
        val_y = torch.from_numpy(np.load(os.path.join(out, "validation_targets.npy")).astype(np.int64))

    vocab = params["transformer.wte.weight"].shape[0]
    model = gpt(torch, vocab)
    check_same_model(model, {k: v.shape for k, v in params.items()})
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(params[name]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe["lr"],
                                  betas=(0.9, recipe["beta2"]),
                                  weight_decay=recipe["weight_decay"])

    def lr_at(step):  # ParityLab's LrSchedule: linear warm-up, then cosine to min_lr at `steps`
        base, warmup = recipe["lr"], recipe["warmup"]
        if step < warmup:
            return base * (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, steps - warmup))
        low = base * recipe["min_lr"]
        return low + (base - low) * 0.5 * (1.0 + math.cos(math.pi * progress))

    block = val_x.shape[1]
    theirs_losses = []
    start = time.perf_counter()
    model.train()
    for step in range(steps):
        starts = offsets[step]
        x = torch.stack([train[o:o + block] for o in starts])
        y = torch.stack([train[o + 1:o + 1 + block] for o in starts])
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step)
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab), y.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe["clip"])
        optimizer.step()
        theirs_losses.append(loss.item())
    theirs_seconds = time.perf_counter() - start
    model.eval()
    with torch.no_grad():
        total = 0.0
        for i in range(0, len(val_x), 16):
            logits = model(val_x[i:i + 16]).double()
            total += torch.nn.functional.cross_entropy(
                logits.view(-1, vocab), val_y[i:i + 16].reshape(-1), reduction="sum").item()
        theirs_val = total / val_y.numel()

    compared = [i for i in range(min(20, steps)) if i in ours_losses]
    print(f"gpt anchor: {steps} steps of nanoGPT's shakespeare_char CPU recipe on {corpus}, "
          f"the same start and windows (torch {torch.__version__}, OpenBLAS kernels "
          f"{os.environ['OPENBLAS_CORETYPE']} for both)")
    print(f"  {'step':>4s} {'ParityLab':>12s} {'PyTorch':>12s} {'relative':>10s}")
    worst = 0.0
    for i in compared:
        rel = abs(ours_losses[i] - theirs_losses[i]) / abs(theirs_losses[i])
        worst = max(worst, rel)
        print(f"  {i + 1:4d} {ours_losses[i]:12.6f} {theirs_losses[i]:12.6f} {rel:10.2e}")
    print(f"  the {len(compared)} step losses of the first 20 differ by at most {worst:.2e} relative "
          f"(target <= 1e-4)")
    print(f"  validation loss after {steps} steps: ParityLab {ours_val:.4f}, PyTorch "
          f"{theirs_val:.4f} nats, difference {ours_val - theirs_val:+.4f} (target within 0.05); "
          f"{len(val_x)} windows of {block}")
    print(f"  training time: ParityLab {ours_seconds:.1f} s (the whole run, evaluations "
          f"included), PyTorch {theirs_seconds:.1f} s (steps only)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "paritylab-cli"))
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50, help="timed steps per measurement")
    parser.add_argument("--model", choices=["small-cnn", "resnet18", "gpt"], default="small-cnn")
    parser.add_argument("--width", type=int, default=16, help="resnet18: channels of stage 1")
    parser.add_argument("--input", choices=["28", "32x3"], default="28",
                        help="28: Fashion-MNIST 1x28x28; 32x3: random 3x32x32 (resnet18)")
    parser.add_argument("--backends", default="cpu-fp32,gpu-tf32,tpu-bf16",
                        help="ParityLab backends, comma-separated; the first is the fp32 one")
    parser.add_argument("--no-study", action="store_true", help="skip the study-level figure")
    parser.add_argument("--anchor", type=int, default=0,
                        help="gpt: train N steps in both from the same start and compare instead "
                             "of timing")
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
    if args.model == "gpt":
        x = y = None
    elif args.input == "28":
        x, y = load_fashion_mnist(10000)
    else:
        x, y = random_images(10000, 3, 32)
    torch.manual_seed(0)
    unit = "images_per_second"
    if args.model == "gpt":
        shapes = probe["parameter_shapes"]
        vocab, block = shapes["transformer.wte.weight"][0], shapes["transformer.wpe.weight"][0]
        model = gpt(torch, vocab, block_size=block)
        count = check_same_model(model, shapes)
        with open(probe["dataset"].split(":", 1)[1], "rb") as f:
            text = np.frombuffer(f.read(), np.uint8)
        # The timing needs token ids below the vocabulary size, not the corpus's own mapping.
        tokens = torch.from_numpy((text % vocab).astype(np.int64))
        if args.anchor > 0:
            gpt_anchor(torch, args.cli, probe["dataset"].split(":", 1)[1], args.anchor)
            return
        described = (f"gpt, {count} parameters, the same names and shapes in both, windows of "
                     f"{block} tokens")
        print(described, flush=True)
        args.no_study = True
        unit = "tokens_per_second"
    elif args.model == "small-cnn":
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
            # PyTorch's first GPT steps are several times slower than the rest (allocator and
            # kernel warm-up): at least 10 warm-up steps.
            torch_tokens_per_second(torch, model, tokens, GPT_BATCH, block, max(10, args.warmup),
                                    args.steps) if args.model == "gpt" else
            torch_images_per_second(torch, model, x, y, args.batch, args.warmup, args.steps))
        for b in backends:
            samples[b].append(paritylab_bench(args.cli, args, b, args.warmup, args.steps)[unit])
        print(f"round {r + 1}/{args.rounds}: " +
              ", ".join(f"{k} {v[-1]:.0f}" for k, v in samples.items()), flush=True)

    # Other tenants of a shared machine only ever slow a round down, so the best round of each
    # is the steadiest estimate of its unloaded speed; the median is printed beside it.
    median = {k: statistics.median(v) for k, v in samples.items()}
    best = {k: max(v) for k, v in samples.items()}
    print(f"\n{described}, batch {GPT_BATCH if args.model == 'gpt' else args.batch}, one thread, "
          f"AdamW; {unit.replace('_per_second', '')}/s, median and best of "
          f"{args.rounds} alternated rounds (torch {torch.__version__}, OpenBLAS kernels "
          f"{os.environ['OPENBLAS_CORETYPE']} for both)")
    print(f"  {'':34s} {'median':>9s} {'best':>9s}")
    for k in samples:
        label = "PyTorch fp32" if k == "pytorch" else f"ParityLab {k} (emulated)"
        print(f"  {label:34s} {median[k]:9.1f} {best[k]:9.1f}")
    fp32 = backends[0]
    ratio = f"ParityLab {fp32} / PyTorch fp32"
    print(f"  {ratio:34s} {median[fp32] / median['pytorch']:8.2f}x {best[fp32] / best['pytorch']:8.2f}x"
          f"  (target >= {1.5 if args.model == 'gpt' else 1.25})")
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
