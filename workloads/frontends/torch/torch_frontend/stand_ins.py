"""torch.rms_norm for a torch that predates it.

torch.rms_norm (and torch.nn.functional.rms_norm) arrived in torch 2.4;
Debian 12 ships torch 1.13. So that a function written for torch >= 2.4
traces unchanged, a small custom op, trnbench::rms_norm, stands in: one op
with the same signature, shape-only kernels (Meta for torch.jit.trace, CPU
for fake tensors) and an Autograd kernel that dispatches below autograd,
which 1.13 needs before a custom op runs on the meta backend. The passes
read trnbench::rms_norm as aten::rms_norm."""

from __future__ import annotations

from typing import List, Optional

_LIB = None


def install() -> None:
    global _LIB
    import torch

    if hasattr(torch, "rms_norm") or _LIB is not None:
        return
    lib = torch.library.Library("trnbench", "DEF")
    lib.define("rms_norm(Tensor input, int[] normalized_shape, "
               "Tensor? weight=None, float? eps=None) -> Tensor")

    def shape_only(input, normalized_shape, weight=None, eps=None):
        return torch.empty_like(input)

    def below_autograd(*args, **kwargs):
        guard = torch._C._AutoDispatchBelowAutograd()
        try:
            return torch.ops.trnbench.rms_norm(*args, **kwargs)
        finally:
            del guard

    lib.impl("rms_norm", shape_only, "Meta")
    lib.impl("rms_norm", shape_only, "CPU")
    lib.impl("rms_norm", below_autograd, "Autograd")

    def rms_norm(input, normalized_shape: List[int],
                 weight: Optional[object] = None,
                 eps: Optional[float] = None):
        return torch.ops.trnbench.rms_norm(input, list(normalized_shape),
                                           weight, eps)

    torch.rms_norm = rms_norm
    torch.nn.functional.rms_norm = rms_norm
    _LIB = lib
