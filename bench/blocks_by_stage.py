#!/usr/bin/python3
"""ParityLab vs PyTorch, one ResNet-18 identity block per stage.

Times the second BasicBlock of each stage (layerS.1: w * 2^(S-1) channels on 28x28, 14x14, 7x7
and 4x4 planes), forward + backward at batch 128 on ONE thread, in PyTorch (the block of
compare_pytorch.py's model) and in ParityLab (`paritylab_bench`'s BM_ResNetIdentityBlockByStage,
cpu-fp32), alternating the two, and prints the best milliseconds of each and the rate of the
block's convolution products in GFLOP/s (2 x 3 products of 2 * C * 9C * plane flops per image,
padding taps included). Where the whole model's ratio comes from, stage by stage.

Optional: needs Debian's python3-torch; run with /usr/bin/python3.
Usage: bench/blocks_by_stage.py [--bench build/bench/paritylab_bench] [--width 16] [--rounds 3]
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_pytorch import ROOT, resnet18  # noqa: E402

BATCH = 128
SIDES = [28, 14, 7, 4]


def torch_block_ms(torch, block, channels, side, repeats):
    x = torch.randn(BATCH, channels, side, side, requires_grad=True)
    dy = torch.randn(BATCH, channels, side, side) * 1e-3
    block.train()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        block(x).backward(dy)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def paritylab_block_ms(bench, width, min_time):
    command = [bench, f"--benchmark_filter=BM_ResNetIdentityBlockByStage/{width}/",
               f"--benchmark_min_time={min_time}", "--benchmark_format=json"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    runs = json.loads(out)["benchmarks"]
    if len(runs) != len(SIDES):
        sys.exit(f"blocks_by_stage: {bench} has no BM_ResNetIdentityBlockByStage for width "
                 f"{width} (found {len(runs)} of {len(SIDES)} stages)")
    return [r["real_time"] for r in runs]  # milliseconds (the case's unit)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "paritylab_bench"))
    parser.add_argument("--width", type=int, choices=[16, 64], default=16)
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two")
    args = parser.parse_args()
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"blocks_by_stage: no benchmark binary at {args.bench} (build it first)")
    try:
        import torch
    except ImportError:
        sys.exit("blocks_by_stage: needs PyTorch (apt-get install python3-torch; /usr/bin/python3)")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = resnet18(torch.nn, 1, args.width)
    blocks = [getattr(model, f"layer{s + 1}")[1] for s in range(len(SIDES))]
    channels = [args.width << s for s in range(len(SIDES))]
    repeats = 6 if args.width == 16 else 2
    theirs = [float("inf")] * len(SIDES)
    ours = [float("inf")] * len(SIDES)
    for r in range(args.rounds):
        for s, block in enumerate(blocks):
            theirs[s] = min(theirs[s], torch_block_ms(torch, block, channels[s], SIDES[s], repeats))
        ours = [min(a, b) for a, b in
                zip(ours, paritylab_block_ms(args.bench, args.width, 0.5 if args.width == 16 else 1))]
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"resnet18 width {args.width}, identity block per stage, batch {BATCH}, one thread, "
          f"forward + backward; best of {args.rounds} alternated rounds (torch {torch.__version__})")
    print(f"  {'stage':<22}{'PyTorch ms':>11}{'ours ms':>9}{'PyTorch GF/s':>14}{'ours GF/s':>11}"
          f"{'ours/PyTorch':>14}")
    for s in range(len(SIDES)):
        c, side = channels[s], SIDES[s]
        gflop = 2 * 3 * 2.0 * c * 9 * c * side * side * BATCH / 1e9
        print(f"  {f'{s + 1} ({c} x {side}x{side})':<22}{theirs[s]:>11.1f}{ours[s]:>9.1f}"
              f"{gflop / theirs[s] * 1e3:>14.1f}{gflop / ours[s] * 1e3:>11.1f}"
              f"{theirs[s] / ours[s]:>13.2f}x")


if __name__ == "__main__":
    main()
