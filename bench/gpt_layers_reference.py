#!/usr/bin/python3
"""PyTorch reference values for ParityLab's GPT layers (tests/nn/gpt_layers_reference_test.cpp).

Builds, in fp32 on the CPU, nanoGPT's CausalSelfAttention (c_attn Linear C -> 3C, causal softmax
attention over n_head heads, c_proj Linear C -> C; no dropout), a LayerNorm and GELU(tanh), with
deterministic weights and inputs that the C++ test computes by the same formulas:
  value(i) = amplitude * sin(i * step + phase), i the row-major index, computed in double and
  rounded to fp32.
The loss is sum(y * R) with R(i) = cos(i * 0.29), so the gradients are those of dy = R. Prints,
for every output and gradient: its sum, its sum of absolute values and its values at four
indices (0, 7, n/2, n-1), as C++ initialisers to pin in the test.

Also the whole tiny GPT (nanoGPT's GPT without dropout, tied head) on parameters from the same
kind of formula (gpt_parameters()), for tests/nn/gpt_model_test.cpp's pinned loss and gradients.

Optional: needs Debian's python3-torch; run with /usr/bin/python3 bench/gpt_layers_reference.py
"""

import math

import torch

B, T, C, N_HEAD = 2, 5, 8, 2


def formula(shape, amplitude, step, phase=0.0):
    n = math.prod(shape)
    values = [amplitude * math.sin(i * step + phase) for i in range(n)]
    return torch.tensor(values, dtype=torch.float64).to(torch.float32).reshape(shape)


def upstream(shape):
    n = math.prod(shape)
    values = [math.cos(i * 0.29) for i in range(n)]
    return torch.tensor(values, dtype=torch.float64).to(torch.float32).reshape(shape)


def attention(x, w_attn, b_attn, w_proj, b_proj):
    """nanoGPT's CausalSelfAttention.forward, the manual (non-flash) path."""
    b, t, c = x.shape
    q, k, v = torch.nn.functional.linear(x, w_attn, b_attn).split(c, dim=2)
    q = q.view(b, t, N_HEAD, c // N_HEAD).transpose(1, 2)
    k = k.view(b, t, N_HEAD, c // N_HEAD).transpose(1, 2)
    v = v.view(b, t, N_HEAD, c // N_HEAD).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
    att = att.masked_fill(~mask, float("-inf"))
    att = torch.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
    return torch.nn.functional.linear(y, w_proj, b_proj)


def summary(name, t):
    flat = t.detach().reshape(-1).to(torch.float64)
    n = flat.numel()
    picks = [flat[i].item() for i in (0, 7, n // 2, n - 1)]
    values = ", ".join(f"{v:.9g}" for v in [flat.sum().item(), flat.abs().sum().item()] + picks)
    print(f'    {{"{name}", {{{values}}}}},')


def main():
    torch.set_num_threads(1)
    x = formula((B, T, C), 1.0, 0.37).requires_grad_()
    w_attn = formula((3 * C, C), 0.3, 0.41, 0.1).requires_grad_()
    b_attn = formula((3 * C,), 0.1, 0.23, 0.5).requires_grad_()
    w_proj = formula((C, C), 0.3, 0.53, 0.2).requires_grad_()
    b_proj = formula((C,), 0.1, 0.71, 0.3).requires_grad_()
    y = attention(x, w_attn, b_attn, w_proj, b_proj)
    (y * upstream(y.shape)).sum().backward()
    print("// attention: B=2, T=5, C=8, n_head=2")
    for name, t in [("y", y), ("dx", x.grad), ("c_attn.weight", w_attn.grad),
                    ("c_attn.bias", b_attn.grad), ("c_proj.weight", w_proj.grad),
                    ("c_proj.bias", b_proj.grad)]:
        summary(name, t)

    xl = formula((B, T, C), 2.0, 0.37, 0.4).requires_grad_()
    w_ln = formula((C,), 0.5, 0.61, 1.0).requires_grad_()
    b_ln = formula((C,), 0.2, 0.83, 0.2).requires_grad_()
    yl = torch.nn.functional.layer_norm(xl, (C,), w_ln, b_ln, 1e-5)
    (yl * upstream(yl.shape)).sum().backward()
    print("// layer norm over C=8 of [2, 5, 8]")
    for name, t in [("y", yl), ("dx", xl.grad), ("weight", w_ln.grad), ("bias", b_ln.grad)]:
        summary(name, t)

    xg = formula((B, T, 4 * C), 3.0, 0.37, 0.7).requires_grad_()
    yg = torch.nn.functional.gelu(xg, approximate="tanh")
    (yg * upstream(yg.shape)).sum().backward()
    print("// gelu (tanh) of [2, 5, 32]")
    for name, t in [("y", yg), ("dx", xg.grad)]:
        summary(name, t)


VOCAB, BLOCK, N_LAYER = 7, 5, 2


def gpt_parameters():
    """The tiny GPT's parameters in nanoGPT's state_dict order (lm_head tied to wte), each from
    offset + 0.3 * sin(i * (0.37 + 0.05 k) + 0.3 k), k its place in that order, offset 1 for the
    LayerNorm weights and 0 for the rest."""
    shapes = [("transformer.wte.weight", (VOCAB, C)), ("transformer.wpe.weight", (BLOCK, C))]
    for layer in range(N_LAYER):
        h = f"transformer.h.{layer}."
        shapes += [(h + "ln_1.weight", (C,)), (h + "ln_1.bias", (C,)),
                   (h + "attn.c_attn.weight", (3 * C, C)), (h + "attn.c_attn.bias", (3 * C,)),
                   (h + "attn.c_proj.weight", (C, C)), (h + "attn.c_proj.bias", (C,)),
                   (h + "ln_2.weight", (C,)), (h + "ln_2.bias", (C,)),
                   (h + "mlp.c_fc.weight", (4 * C, C)), (h + "mlp.c_fc.bias", (4 * C,)),
                   (h + "mlp.c_proj.weight", (C, 4 * C)), (h + "mlp.c_proj.bias", (C,))]
    shapes += [("transformer.ln_f.weight", (C,)), ("transformer.ln_f.bias", (C,))]
    params = {}
    for k, (name, shape) in enumerate(shapes):
        offset = 1.0 if name.split(".")[-2] in ("ln_1", "ln_2", "ln_f") and name.endswith(
            ".weight") else 0.0
        n = math.prod(shape)
        values = [offset + 0.3 * math.sin(i * (0.37 + 0.05 * k) + 0.3 * k) for i in range(n)]
        params[name] = torch.tensor(values, dtype=torch.float64).to(torch.float32).reshape(
            shape).requires_grad_()
    return params


def gpt(ids, p):
    """nanoGPT's GPT.forward without dropout: logits for every position, lm_head = wte."""
    t = ids.shape[1]
    x = p["transformer.wte.weight"][ids] + p["transformer.wpe.weight"][:t]
    for layer in range(N_LAYER):
        h = f"transformer.h.{layer}."
        ln = torch.nn.functional.layer_norm
        a = ln(x, (C,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], 1e-5)
        x = x + attention(a, p[h + "attn.c_attn.weight"], p[h + "attn.c_attn.bias"],
                          p[h + "attn.c_proj.weight"], p[h + "attn.c_proj.bias"])
        m = ln(x, (C,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], 1e-5)
        m = torch.nn.functional.linear(m, p[h + "mlp.c_fc.weight"], p[h + "mlp.c_fc.bias"])
        m = torch.nn.functional.gelu(m, approximate="tanh")
        x = x + torch.nn.functional.linear(m, p[h + "mlp.c_proj.weight"], p[h + "mlp.c_proj.bias"])
    x = torch.nn.functional.layer_norm(x, (C,), p["transformer.ln_f.weight"],
                                       p["transformer.ln_f.bias"], 1e-5)
    return torch.nn.functional.linear(x, p["transformer.wte.weight"])


def main_gpt():
    p = gpt_parameters()
    ids = torch.tensor([(i * 3 + 1) % VOCAB for i in range(B * T)]).reshape(B, T)
    logits = gpt(ids, p)
    loss = (logits * upstream(logits.shape)).sum()
    loss.backward()
    print(f"// tiny GPT: vocab {VOCAB}, block {BLOCK}, {N_LAYER} layers, n_head {N_HEAD}, C {C}, "
          f"tied; ids (3 i + 1) % {VOCAB} of [{B}, {T}]")
    print(f"    loss = {loss.item():.9g}")
    summary("logits", logits)
    for name in ["transformer.wte.weight", "transformer.wpe.weight",
                 "transformer.h.0.ln_1.weight", "transformer.h.0.attn.c_attn.weight",
                 "transformer.h.1.mlp.c_fc.bias", "transformer.h.1.mlp.c_proj.weight",
                 "transformer.ln_f.bias"]:
        summary(name, p[name].grad)


if __name__ == "__main__":
    main()
    main_gpt()
