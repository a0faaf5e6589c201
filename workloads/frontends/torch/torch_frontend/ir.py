"""The front end's IR, shaped like torch.fx: a Graph of Nodes over Values.

Both tracers record into it (eager.py from torch.jit.trace, compiled.py from
make_fx); the passes rewrite it; emit.py writes it as a spec."""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple, Union


@dataclasses.dataclass(eq=False)
class Value:
    """A tensor. `placement` is "host" for a value that lives on the CPU
    (a Python scalar an eager op copies to the device); `const` holds a
    compile-time scalar's number (a device constant of a compiled graph)."""

    name: str
    shape: Tuple[int, ...]
    dtype: str  # spec dtype: bf16, fp16, fp32, int8, int32
    placement: str = "device"
    const: Optional[float] = None


Arg = Union[Value, float, int, bool, None, list, str]


@dataclasses.dataclass(eq=False)
class Node:
    """One op. `target` is the op as traced ("aten::add_",
    "aten._softmax.default"); `op` the spec op it becomes ("aten::softmax");
    `args` the traced arguments, Values and constants; `inputs` the Values
    the spec op reads, in spec order; `line` the user's source line."""

    target: str
    args: List[Arg]
    output: Value
    line: int = 0
    op: str = ""
    inputs: List[Value] = dataclasses.field(default_factory=list)
    # ScalarE activation operands folded in by the compiled passes.
    folded: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Graph:
    path: str  # the user's file, as given
    function: str
    mode: str  # "eager" or "compiled"
    inputs: List[Value] = dataclasses.field(default_factory=list)
    nodes: List[Node] = dataclasses.field(default_factory=list)
    outputs: List[Value] = dataclasses.field(default_factory=list)

    def uses(self) -> Dict[int, List[Node]]:
        """id(value) -> the nodes that read it."""
        out: Dict[int, List[Node]] = {}
        for n in self.nodes:
            for v in n.inputs:
                out.setdefault(id(v), []).append(n)
        return out

    def where(self, line: int) -> str:
        return f"{self.path}:{line}" if line else self.path
