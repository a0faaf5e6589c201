"""The torch front end traced in this process (one `import torch` for the
module): the specs it writes and the inputs it refuses."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import Dict, List, Tuple

from torch_test_util import EXAMPLES, FUNCTIONS, SOURCE, require_torch

RMSNORM = os.path.join(EXAMPLES, "rmsnorm.py")
SEED_ARGS = "x=4x512:bfloat16,weight=512:bfloat16"


def setUpModule() -> None:
    require_torch()


def trace(function: str, args: str, *extra: str
          ) -> Tuple[int, str, Dict[str, dict]]:
    """Runs the front end; returns its exit code, its stderr and the specs
    it wrote by file suffix ("0_eager")."""
    from torch_frontend import cli

    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "t")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cli.main([function, "--args", args, "--output-prefix",
                           prefix] + list(extra))
        specs = {}
        for f in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, f)) as fh:
                specs[f[2:-5]] = json.load(fh)
    return rc, err.getvalue(), specs


def structure(spec: dict) -> List[tuple]:
    """Each op with the shapes, dtypes and placements it reads and writes:
    what the model costs, without the tensor names."""
    t = {x["name"]: (tuple(x["shape"]), x["dtype"],
                     x.get("placement", "device")) for x in spec["tensors"]}
    return [(op["op"], [t[i] for i in op["inputs"]], t[op["output"]])
            for op in spec["ops"]]


def shipped(name: str) -> dict:
    with open(os.path.join(SOURCE, "workloads", "specs",
                           name + ".json")) as f:
        return json.load(f)


class SeedTest(unittest.TestCase):
    """The seed's RMSNorm, from its source, is the shipped specs."""

    def test_naive_eager_and_compiled_are_the_shipped_specs(self) -> None:
        rc, err, specs = trace(f"{RMSNORM}::rms_norm_fn", SEED_ARGS)
        self.assertEqual(rc, 0, err)
        self.assertEqual(specs["0_eager"]["mode"], "eager")
        self.assertEqual(structure(specs["0_eager"]),
                         structure(shipped("rmsnorm_naive")))
        self.assertEqual([op["op"] for op in specs["0_eager"]["ops"]],
                         ["aten::mul", "aten::mean", "aten::add",
                          "aten::rsqrt", "aten::mul", "aten::mul"])
        # eps is named after the argument it came from, on the host.
        self.assertIn({"name": "eps", "shape": [], "dtype": "fp32",
                       "placement": "host"}, specs["0_eager"]["tensors"])
        self.assertEqual(specs["0_compiled"]["mode"], "compiled")
        self.assertEqual(structure(specs["0_compiled"]),
                         structure(shipped("rmsnorm_compiled")))
        self.assertEqual(specs["0_eager"]["family"], "rms_norm_fn")
        self.assertEqual(specs["0_compiled"]["name"], "rms_norm_fn_compiled")

    def test_fused_op_is_the_shipped_spec(self) -> None:
        rc, err, specs = trace(f"{RMSNORM}::rms_norm_fused", SEED_ARGS,
                               "--mode", "eager")
        self.assertEqual(rc, 0, err)
        self.assertEqual(list(specs), ["0_eager"])
        self.assertEqual(specs["0_eager"]["mode"], "fused_op")
        self.assertEqual(structure(specs["0_eager"]),
                         structure(shipped("rmsnorm_fused")))

    def test_sweep_points_in_one_process(self) -> None:
        rc, err, specs = trace(f"{RMSNORM}::rms_norm_fn", SEED_ARGS,
                               "--point", "x=64x1024;weight=1024",
                               "--point", "x=8x256;weight=256")
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(specs), ["0_compiled", "0_eager",
                                         "1_compiled", "1_eager",
                                         "2_compiled", "2_eager"])
        out = {t["name"]: t["shape"] for t in specs["1_eager"]["tensors"]}
        self.assertEqual((out["x"], out["weight"], out["mean_sq"]),
                         ([64, 1024], [1024], [64, 1]))
        out = {t["name"]: t["shape"] for t in specs["2_compiled"]["tensors"]}
        self.assertEqual(out["out"], [8, 256])


class OpsTest(unittest.TestCase):
    """Each construct traced into the spec ops of its cost rule."""

    def ops(self, function: str, args: str) -> Tuple[List[tuple],
                                                     List[tuple]]:
        rc, err, specs = trace(function, args)
        self.assertEqual(rc, 0, err)
        return structure(specs["0_eager"]), structure(specs["0_compiled"])

    def test_mlp(self) -> None:
        eager, compiled = self.ops(
            f"{RMSNORM}::mlp",
            "x=4x512:bfloat16,w1=512x2048:bfloat16,w2=2048x512:bfloat16")
        self.assertEqual([o[0] for o in eager],
                         ["aten::matmul", "aten::gelu", "aten::matmul"])
        # make_fx decomposes matmul of 2-d operands into mm.
        self.assertEqual([o[0] for o in compiled],
                         ["aten::mm", "aten::gelu", "aten::mm"])
        self.assertEqual(compiled[-1][2], ((4, 512), "bf16", "device"))

    def test_attention(self) -> None:
        eager, compiled = self.ops(
            f"{RMSNORM}::attention",
            "q=2x128x64:bfloat16,k=2x128x64:bfloat16,v=2x128x64:bfloat16")
        # k.transpose(-2, -1) is a view, free; the scale q.shape[-1] ** 0.5
        # is computed on the host and copied by the eager div.
        self.assertEqual([o[0] for o in eager],
                         ["aten::view", "aten::matmul", "aten::div",
                          "aten::softmax", "aten::matmul"])
        self.assertEqual(eager[0][2][0], (2, 64, 128))
        self.assertEqual(eager[2][1][1], ((), "fp32", "host"))
        self.assertIn("aten::bmm", [o[0] for o in compiled])
        # Compiled, the scale is a constant of the graph, not a host copy.
        self.assertNotIn("host", [p for o in compiled for i in o[1]
                                  for p in i[2:]])

    def test_linear_norm_embedding_views(self) -> None:
        eager, compiled = self.ops(f"{FUNCTIONS}::linear_silu",
                                   "x=4x64:float32,w=32x64:float32,"
                                   "b=32:float32")
        self.assertEqual([o[0] for o in eager], ["aten::linear",
                                                 "aten::silu"])
        # linear decomposes to t + addmm; the front end reads it as linear.
        self.assertEqual([o[0] for o in compiled], ["aten::linear",
                                                    "aten::silu"])
        eager, compiled = self.ops(f"{FUNCTIONS}::norms",
                                   "x=4x64:bfloat16,g=64:bfloat16,"
                                   "b=64:bfloat16")
        self.assertEqual([o[0] for o in eager],
                         ["aten::layer_norm", "aten::sigmoid", "aten::mul"])
        self.assertEqual(len(eager[0][1]), 3)
        eager, _ = self.ops(f"{FUNCTIONS}::lookup",
                            "ids=4x8:int64,table=1000x64:bfloat16")
        self.assertEqual(eager[0], ("aten::embedding",
                                    [((1000, 64), "bf16", "device"),
                                     ((4, 8), "int32", "device")],
                                    ((4, 8, 64), "bf16", "device")))
        # sum(-1) without keepdim: the reduction, then a free view.
        self.assertEqual([o[0] for o in eager[1:]], ["aten::sum",
                                                     "aten::view"])
        eager, compiled = self.ops(f"{FUNCTIONS}::reshaped",
                                   "x=4x64:float32")
        self.assertEqual([o[0] for o in eager],
                         ["aten::view", "aten::add", "aten::view"])
        self.assertEqual(eager[1][1][1][2], "host")


class RefusalTest(unittest.TestCase):
    """One line naming the source line, exit 2, nothing written."""

    def refused(self, function: str, line_text: str, message: str) -> None:
        rc, err, specs = trace(f"{FUNCTIONS}::{function}", "x=4x8:float32")
        self.assertEqual(rc, 2, err)
        self.assertEqual(specs, {})
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        with open(FUNCTIONS) as f:
            line = [i for i, t in enumerate(f, 1) if line_text in t][0]
        self.assertTrue(err.startswith(f"{FUNCTIONS}:{line}: "), err)
        self.assertIn(message, err)

    def test_refusals(self) -> None:
        self.refused("branchy", "if x.sum() > 0", "reads a tensor's value")
        self.refused("reads_item", ".item()", "reads a tensor's value")
        self.refused("writes_argument", "x.mul_(2.0)",
                     "in-place aten::mul_ on the argument x")
        self.refused("unsupported", "torch.cumsum",
                     "aten::cumsum is not supported")
        self.refused("middle_reduction", "x.sum(dim=0)",
                     "reduces the last dim only")

    def test_nothing_to_time(self) -> None:
        rc, err, specs = trace(f"{FUNCTIONS}::only_views", "x=4x8:float32")
        self.assertEqual((rc, specs), (2, {}), err)
        self.assertIn("runs no op on the device", err)

    def test_bad_arguments(self) -> None:
        rc, err, _ = trace(f"{RMSNORM}::rms_norm_fn", "x=4x512:bfloat16")
        self.assertEqual(rc, 2)
        self.assertIn("the function's argument weight is not given", err)
        rc, err, _ = trace(f"{RMSNORM}::nothing", SEED_ARGS)
        self.assertEqual(rc, 2)
        self.assertIn("no function nothing; it defines attention", err)

    def test_arguments_within_the_spec_formats_limits(self) -> None:
        """Dims past the spec format's limits are bad input, said in one
        line (frontend_common.args), not a front-end bug (exit 3) or a spec
        trnbench refuses afterwards."""
        for args, message in [
                ("x=99999999999999999999x5:float32",
                 "expected at most 8 dims of at most 1099511627776 each"),
                ("x=1099511627776x2:float32",
                 "a tensor has at most 2^40 (1099511627776) elements"),
                ("x=1x1x1x1x1x1x1x1x1:float32",
                 "expected at most 8 dims"),
                ("x=4x8:float32,eps=1e999", "expected a finite number")]:
            rc, err, specs = trace(f"{FUNCTIONS}::reshaped", args)
            self.assertEqual((rc, specs), (2, {}), err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
