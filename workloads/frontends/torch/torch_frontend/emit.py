"""The spec of a traced graph (docs/spec-format.md, torch ops)."""

from __future__ import annotations

from typing import Dict, List

from . import ops
from .ir import Graph, Value


def spec_mode(g: Graph) -> str:
    if g.mode == "compiled":
        return "compiled"
    work = [n for n in g.nodes if n.op != "aten::view"]
    if len(g.nodes) == 1 and len(work) == 1 and work[0].op in ops.FUSED:
        return "fused_op"
    return "eager"


def emit(g: Graph, name: str, family: str, description: str,
         provenance: Dict[str, object]) -> Dict[str, object]:
    tensors: List[Value] = []
    seen = set()

    def add(v: Value) -> None:
        if id(v) not in seen:
            seen.add(id(v))
            tensors.append(v)

    for v in g.inputs:
        add(v)
    for n in g.nodes:  # host scalars next, as the seed's spec has eps
        for v in n.inputs:
            if v.placement == "host":
                add(v)
    for n in g.nodes:
        for v in n.inputs:
            add(v)
        add(n.output)
    used = {id(v) for n in g.nodes for v in n.inputs}
    used |= {id(n.output) for n in g.nodes}
    return {
        "schema_version": 1,
        "name": name,
        "family": family,
        "description": description,
        "mode": spec_mode(g),
        "tensors": [_tensor(v) for v in tensors
                    if id(v) in used or v in g.inputs],
        "ops": [{"op": n.op, "inputs": [v.name for v in n.inputs],
                 "output": n.output.name} for n in g.nodes],
        "kernel_source": provenance,
    }


def _tensor(v: Value) -> Dict[str, object]:
    t: Dict[str, object] = {"name": v.name, "shape": list(v.shape),
                            "dtype": v.dtype}
    if v.placement != "device":
        t["placement"] = v.placement
    return t


def describe(g: Graph) -> str:
    """What the spec's ops are, in words, for its description."""
    if g.mode == "compiled":
        folded = [f"{n.op} takes {f}" for n in g.nodes for f in n.folded]
        text = (f"The ATen graph torch.compile(backend='neuron') hands the "
                f"Neuron compiler ({len(g.nodes)} ops, as make_fx traces "
                "it), compiled into one NEFF and run as one hardware "
                "execution")
        if folded:
            text += "; a compile-time scalar folded into a ScalarE " \
                "activation's bias or scale: " + "; ".join(folded)
        return text + "."
    host = sorted({v.name for n in g.nodes for v in n.inputs
                   if v.placement == "host"})
    work = [n for n in g.nodes if n.op != "aten::view"]
    text = (f"Eager execution: each of the {len(work)} ATen ops one "
            "hardware execution")
    if host:
        text += ("; Python scalars " + ", ".join(host) + " start on the "
                 "host and are copied to the device by the op that reads "
                 "them")
    return text + "."
