"""The first seed's RMSNorm ("Profiling TorchNeuron (Part 1)"), three ways,
and two small blocks of a transformer: run with trnbench --torch
(docs/torch-source.md)."""

import torch
import torch.nn.functional as F


def rms_norm_fn(x, weight, eps=1e-6):
    # Naive eager: three aten::mul, aten::mean, aten::add, aten::rsqrt;
    # eps starts on the CPU, so aten::add copies it to the device first.
    x_sq = x * x
    mean_sq = torch.mean(x_sq, dim=-1, keepdim=True)
    rstd = torch.rsqrt(mean_sq + eps)
    return x * rstd * weight


def rms_norm_fused(x, weight, eps=1e-6):
    # The fused op (torch >= 2.4): one aten::rms_norm.
    return torch.rms_norm(x, (x.shape[-1],), weight, eps)


def mlp(x, w1, w2):
    # A transformer's feed-forward block.
    return F.gelu(x @ w1) @ w2


def attention(q, k, v):
    # Softmax attention of one head per batch row.
    scores = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
    return torch.softmax(scores, dim=-1) @ v
