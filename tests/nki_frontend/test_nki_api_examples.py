"""The names the front end gained from the reference, each traced from the
reference's own example where it has one (../shared/fixtures/nki-corpus,
the SDK's test_nki_*.py at the manifest's arguments) and from a kernel of
our own in today's API where it has none (kernels/api_generations.py);
every spec is then run by trnbench in one call (a spec the front end wrote
must be one trnbench takes).

Without ../shared the reference's examples skip saying so, except under
CI=true."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest
from typing import Dict, List, Tuple

from frontend_test_util import KERNELS, SOURCE, ops, trace

CORPUS = os.environ.get("TRNBENCH_NKI_CORPUS") or os.path.join(
    os.path.dirname(SOURCE), "shared", "fixtures", "nki-corpus")
TEST = "sdk-2026-08/nki/test/"
TRNBENCH = os.environ.get("TRNBENCH_BINARY") or os.path.join(
    SOURCE, "build", "trnbench")

# (file, function, args, kwargs, [(op, key, value) the spec must hold])
EXAMPLES: List[Tuple[str, str, str, Tuple[str, ...], List[Tuple]]] = [
    ("test_nki_isa_bn_stats.py", "nki_bn_stats_bn_aggr_1",
     "a_tensor=128x128:float32", (),
     [("bn_stats", "engine", "vector"), ("bn_aggr", "engine", "vector"),
      ("tensor_copy", "slices", [[128, 1]])]),
    ("test_nki_isa_bn_stats.py", "nki_bn_stats_bn_aggr_2",
     "b_tensor=128x1024:float32", (), [("bn_stats", "slices", [[128, 512]])]),
    ("test_nki_nl_broadcast.py", "test_nl_broadcast", "in_tensor=1x64:int32",
     (), [("tensor_copy", "broadcasts", [128])]),
    ("test_nki_isa_dropout.py", "nki_dropout",
     "a_tensor=128x512:float32,b_tensor=128x1:float32", (),
     [("tensor_scalar", "engine", "vector")]),
    ("test_nki_isa_dropout.py", "nki_dropout_scalar",
     "in_tensor=128x512:float32", (), [("tensor_scalar", "engine", "vector")]),
    ("test_nki_isa_nc_stream_shuffle.py", "nki_nc_stream_shuffle",
     "in_tensor=32x128:float32", (), [("tensor_copy", "engine", "vector")]),
    ("test_nki_isa_range_select.py", "nki_range_select_example",
     "on_true=128x512:float32,bound0=128x1:float32,bound1=128x1:float32,"
     "range_start=32", ("compare_op0=np.greater_equal", "compare_op1=np.less",
                        "dtype=float32"),
     [("tensor_scalar", "accumulate", True), ("reduction", None, None)]),
    ("test_nki_isa_select_reduce.py", "nki_select_reduce_basic",
     "predicate_data=128x64:int8,on_true_data=128x64:float32", (),
     [("tensor_tensor", "engine", "vector")]),
    ("test_nki_isa_select_reduce.py", "nki_select_reduce_with_reduction",
     "predicate_data=128x512:int8,on_true_data=128x512:float32,"
     "on_false_data=128x1:float32", (),
     [("tensor_scalar", "accumulate", True), ("reduction", None, None)]),
    ("test_nki_isa_tensor_scalar_cumulative.py",
     "nki_tensor_scalar_cumulative_scalar", "src_data=128x64:float32,imm0=0.0",
     ("op0=nl.add", "op1=nl.add"), [("tensor_scalar", "engine", "vector")]),
    ("test_nki_isa_tensor_scalar_cumulative.py", "nki_tensor_scan",
     "src_data=128x64:float32,initial=0.0", ("op=nl.add",),
     [("tensor_scalar", "engine", "vector")]),
    ("test_nki_isa_copypredicated.py", "nki_copy_predicated",
     "predicate=128x512:int8,on_true_tensor=128x512:float32,"
     "on_false_tensor=128x512:float32", (),
     [("tensor_tensor", "engine", "vector")]),
    ("test_nki_isa_partition_reduce.py", "nki_par_reduce",
     "a_tensor=128x32x4:float32,b_tensor=1x32x4:float32", (),
     [("tensor_reduce", "engine", "gpsimd")]),
    ("test_nki_isa_sequence_bounds.py", "nki_sequence_bounds",
     "segment_ids=1x32:float32", (), [("tensor_reduce", None, None)]),
    ("test_nki_isa_nc_match_replace8.py", "nki_nc_match_replace8", "", (),
     [("tensor_reduce", "engine", "vector")]),
    ("test_nki_isa_local_gather.py", "nki_local_gather",
     "src_buffer=128x512x4:float32,index=128x4:int32,num_elem_per_idx=4,"
     "num_valid_indices=64", ("output_shape=(128,4,16,4)",),
     [("affine_select", "engine", "gpsimd")]),
    ("test_nki_isa_affine_select.py", "nki_affine_select",
     "a_tensor=128x128:float32", (), [("affine_select", "engine", "gpsimd")]),
    ("test_nki_nl_add.py", "add_broadcast_par_dim",
     "a_tensor=128x512:float32,b_tensor=1x512:float32", (),
     [("tensor_tensor", "broadcasts", [None, 128])]),
]

# Our own kernels (today's API): function -> what the spec must hold.
OWN: Dict[str, List[Tuple]] = {
    "activations": [("activation", "func", f) for f in
                    ("silu", "gelu_apprx_tanh", "softplus", "erf", "abs",
                     "sin")],
    "dst_first": [("load", "id", "t"), ("activation", "func", "exp"),
                  ("tensor_tensor", "engine", "vector"),
                  ("tensor_reduce", "tile", [128, 8])],
    "value_returning": [("activation", "func", "exp"),
                        ("tensor_copy", None, None)],
    "narrow_dtypes": [("load", "dtype", "int8"),
                      ("tensor_copy", "dtype", "int8")],
    "psum_width": [("load", "tile", [128, 512])],
    "rand_and_dropout": [("iota", "engine", "gpsimd"),
                         ("tensor_scalar", "engine", "vector")],
    "todays_forms": [("iota", "engine", "gpsimd"), ("memset", None, None),
                     ("affine_select", "engine", "gpsimd")],
    "softmax_rows": [("reciprocal", None, None),
                     ("activation", "func", "exp")],
}


def reference_missing() -> str:
    if os.path.isdir(CORPUS) or os.environ.get("CI") == "true":
        return ""
    return (f"the NKI corpus is not at {CORPUS} (../shared/fixtures/"
            "nki-corpus beside the clone, or TRNBENCH_NKI_CORPUS)")


def holds(spec: dict, want: Tuple) -> bool:
    kind, key, value = want
    return any(op.get("op") == kind and (key is None or op.get(key) == value)
               for _, op in ops(spec))


class ApiExamples(unittest.TestCase):
    specs: List[Tuple[str, dict]] = []

    def check(self, label: str, spec: dict, wants: List[Tuple]) -> None:
        for w in wants:
            self.assertTrue(holds(spec, w), f"{label}: no {w} in {spec}")
        ApiExamples.specs.append((label, spec))

    @unittest.skipIf(reference_missing(), reference_missing())
    def test_the_references_examples(self) -> None:
        for file, function, args, kwargs, wants in EXAMPLES:
            with self.subTest(function):
                spec = trace(os.path.join(CORPUS, TEST, file) + "::" +
                             function, args, kwargs)
                self.check(function, spec, wants)
        self.run_all("reference")

    def test_our_kernels_in_todays_api(self) -> None:
        for function, wants in OWN.items():
            with self.subTest(function):
                spec = trace(os.path.join(KERNELS, "api_generations.py") +
                             "::" + function, "x=128x1024:float32")
                self.check(function, spec, wants)
        self.run_all("own")

    def run_all(self, what: str) -> None:
        """Every spec of the test through trnbench, in one call."""
        if not os.path.exists(TRNBENCH):
            self.skipTest(f"no trnbench at {TRNBENCH}")
        with tempfile.TemporaryDirectory() as d:
            cmd = [TRNBENCH, "--device", "trn1", "--repeat", "1",
                   "--warmup", "0"]
            for i, (label, spec) in enumerate(ApiExamples.specs):
                path = os.path.join(d, f"{i}_{label}.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(spec, f)
                cmd += ["--spec", path]
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=600)
            self.assertEqual(p.returncode, 0, f"{what}: {p.stderr}")
        ApiExamples.specs = []


if __name__ == "__main__":
    unittest.main()
