"""Functions the torch front end's tests trace: each construct on its own."""

import torch
import torch.nn.functional as F


def linear_silu(x, w, b):
    return F.silu(F.linear(x, w, b))


def norms(x, g, b):
    return F.layer_norm(x, (x.shape[-1],), g, b) * torch.sigmoid(x)


def lookup(ids, table):
    return F.embedding(ids, table).sum(-1)


def reshaped(x):
    return (x.reshape(x.shape[0], -1, 2) + 1.0).flatten(1)


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return x


def reads_item(x):
    scale = x.amax().item()
    return x / scale


def writes_argument(x):
    x.mul_(2.0)
    return x + 1


def unsupported(x):
    return torch.cumsum(x, dim=-1)


def middle_reduction(x):
    return x.sum(dim=0)


def only_views(x):
    return x.transpose(0, 1).reshape(-1)
