"""Access patterns as the 2026-08 deep dive "NKI Access Patterns" documents
them (`deep-dives/nki-aps.rst`), on small kernels the project wrote
(kernels/access_patterns.py): `.ap()` of an HBM tensor, its reinterpret
cast and runtime offsets, an index of a pattern, `.ap(dtype=)` and
`.reshape` of an on-chip tile, kernel arguments in `nl.hbm`. Where the
trnbench binary is built, the traced specs are also run through it."""

from __future__ import annotations

import os
import unittest

from frontend_test_util import KERNELS, find, ops, trace
from test_corpus_constructs import Runs

KERNEL = os.path.join(KERNELS, "access_patterns.py")


def traced(function: str, args: str, kwargs: tuple = ()) -> dict:
    return trace(f"{KERNEL}::{function}", args, kwargs)


def refusal(function: str, args: str) -> str:
    from nki_frontend.errors import TraceError
    try:
        traced(function, args)
    except TraceError as e:
        return e.line()
    raise AssertionError(f"{function} was not refused")


def tensor(spec: dict, name: str) -> dict:
    t, = [t for t in spec["tensors"] if t["name"] == name]
    return t


class HbmPatterns(Runs):
    """A pattern of an HBM tensor is a block of a tensor of its own with
    the pattern's rows, contiguous runs and bytes."""

    def test_rows_of_a_tensor_are_one_block_of_whole_rows(self) -> None:
        spec = traced("hbm_rows", "x=4x128x64:float32")
        load, = find(spec, op="load")
        self.assertEqual(tensor(spec, load["tensor"])["shape"], [128, 64])
        self.assertEqual(load["index"], [":", ":"])
        self.assertEqual(load["tile"], [128, 64])
        self.check_runs(spec)

    def test_an_interleaving_pattern_is_four_runs_a_row(self) -> None:
        # [[f, p], [p * f, 4], [1, f]]: each partition reads 4 runs of f.
        spec = traced("hbm_interleave", "x=4x32x128:bfloat16")
        load, = find(spec, op="load")
        t = tensor(spec, load["tensor"])
        self.assertEqual(t["shape"][:2], [32, 4])
        self.assertGreater(t["shape"][2], 128)  # the runs are not adjacent
        self.assertEqual(load["index"], [":", ":", "0:128"])
        self.assertEqual(load["tile"], [32, 512])
        self.assertEqual(t["dtype"], "bf16")
        self.check_runs(spec)

    def test_one_element_a_row_is_a_run_of_one(self) -> None:
        spec = traced("hbm_column", "x=128x64:float32")
        load, = find(spec, op="load")
        self.assertEqual(load["index"], [":", "0:1"])
        self.assertEqual(load["tile"], [128, 1])
        self.check_runs(spec)

    def test_a_cast_counts_the_new_dtypes_elements(self) -> None:
        spec = traced("hbm_cast", "x=128x256:int32")
        load, = find(spec, op="load")
        t = tensor(spec, load["tensor"])
        self.assertEqual((t["shape"], t["dtype"]), ([128, 512], "bf16"))
        self.assertEqual((load["tile"], load["dtype"]), ([128, 512], "bf16"))
        self.check_runs(spec)

    def test_a_dtype_by_its_name_is_the_dtype(self) -> None:
        # `--kwarg dt=float8_e5m2` reaches the kernel as a text: an nl dtype's
        # name is that dtype, as numpy takes "float32"; any other text is
        # refused in one line.
        by_name = traced("hbm_cast_to", "x=128x256:int32",
                         ("dt=float8_e5m2",))
        by_object = traced("hbm_cast_to", "x=128x256:int32",
                           ("dt=py:nl.float8_e5m2",))
        self.assertEqual(by_name["kernel"], by_object["kernel"])
        self.assertEqual(by_name["tensors"], by_object["tensors"])
        from nki_frontend.errors import TraceError
        with self.assertRaises(TraceError) as e:
            traced("hbm_cast_to", "x=128x256:int32", ("dt=bfloat17",))
        self.assertIn("dtype bfloat17 is not supported", e.exception.line())

    def test_a_pattern_past_the_tensors_end_is_refused(self) -> None:
        line = refusal("hbm_outside", "x=128x64:float32")
        self.assertIn("access_patterns.py:58: .ap[[64, 128], [1, 64]] at "
                      "offset 1 reaches elements 1..8192 of x, which has "
                      "8192", line)

    def test_an_offset_that_moves_with_a_loop(self) -> None:
        spec = traced("hbm_loop_offset", "x=512x64:float32", ("n=4",))
        loop, = find(spec, op="loop", var="i")
        load, = find(spec, op="load")
        self.assertIn(load, loop["body"])
        self.assertEqual(load["tile"], [128, 64])
        self.check_runs(spec)

    def test_an_offset_past_the_end_in_the_last_iteration(self) -> None:
        self.assertIn("reaches elements 0..24575 of x, which has 16384",
                      refusal("hbm_loop_outside", "x=256x64:float32"))

    def test_a_vector_offset_is_a_gather(self) -> None:
        spec = traced("hbm_vector_offset", "a=128x512:float32")
        iota, = find(spec, op="iota")
        load, = find(spec, op="load")
        self.assertEqual(load["indirect"], iota["id"])
        self.assertEqual(load["tile"], [64, 512])
        self.check_runs(spec)

    def test_a_scalar_offset_is_waited_for(self) -> None:
        spec = traced("hbm_scalar_offset", "a=512x512:float32")
        memset, = find(spec, op="memset")
        copy, = find(spec, op="hbm_copy")
        self.assertEqual(copy["after"], [memset["id"]])
        self.assertEqual(copy["tensor"], "out")
        # The source stands as a tensor of the destination's shape.
        self.assertEqual(tensor(spec, copy["from"])["shape"], [128, 256])
        self.check_runs(spec)

    def test_an_index_of_a_pattern_is_the_pattern_of_the_part(self) -> None:
        spec = traced("hbm_ap_index", "x=128x64:float32")
        load, = find(spec, op="load")
        self.assertEqual(load["tile"], [64, 32])
        # 64 rows 64 elements apart, 32 of each: not whole rows.
        self.assertEqual(tensor(spec, load["tensor"])["shape"], [64, 64])
        self.assertEqual(load["index"], [":", "0:32"])
        self.check_runs(spec)

    def test_a_store_through_a_pattern(self) -> None:
        spec = traced("hbm_store_ap", "x=128x64:float32")
        store, = find(spec, op="store")
        self.assertEqual(tensor(spec, store["tensor"])["shape"], [128, 128])
        self.assertEqual(store["index"], [":", "0:64"])
        self.check_runs(spec)

    def test_a_view_as_another_dtype(self) -> None:
        spec = traced("hbm_view", "x=128x1024:float8_e5m2")
        same, wide = find(spec, op="load")
        # One width: the argument itself; bf16 of int8 rows: half as many
        # elements, 128 rows 512 bf16 apart, 256 of each.
        self.assertEqual((same["tensor"], same["tile"]), ("x", [128, 1024]))
        self.assertEqual(tensor(spec, wide["tensor"])["shape"], [128, 512])
        self.assertEqual((wide["index"], wide["tile"], wide["dtype"]),
                         ([":", "0:256"], [128, 256], "bf16"))
        self.check_runs(spec)

    def test_a_kernel_argument_is_in_hbm(self) -> None:
        self.check_runs(traced("arg_buffer", "x=128x64:float32"))

    def test_a_pattern_of_tuples_and_computed_ints(self) -> None:
        # Tuple pairs, a numpy integer and a loop-computed constant: one
        # loop of a [128, 32] load and store, not a refusal.
        spec = traced("pattern_of_computed_ints", "x=128x64:float32")
        loop, = spec["kernel"]["loops"]
        self.assertEqual(loop["var"], "i")
        load, = find(spec, op="load")
        self.assertIn(load, loop["body"])
        self.assertEqual(load["tile"], [128, 32])
        self.check_runs(spec)

    def test_a_tile_in_a_pattern_is_refused(self) -> None:
        line = refusal("pattern_of_a_tile", "x=128x64:float32")
        self.assertIn("access_patterns.py:", line)
        self.assertIn("is a list of [step, num] integer pairs", line)

    def test_a_num_that_moves_with_a_loop_unrolls_it(self) -> None:
        # Today's generation: a `range` variable is an int, so a pattern
        # sized by it gives each iteration its own size.
        spec = traced("pattern_moving_with_a_loop", "x=128x64:float32")
        self.assertEqual([op["tile"] for op in find(spec, op="load")],
                         [[128, 16], [128, 32]])
        self.check_runs(spec)

    def test_a_view_has_the_buffer_of_the_tensor_it_views(self) -> None:
        # The kernel asserts each view's .buffer (HBM argument, shared
        # HBM array, SBUF and PSUM tiles; index, .ap, reshape, view).
        self.check_runs(traced("view_buffers", "x=128x64:float32"))


class OnChipPatterns(Runs):
    def test_a_reinterpret_cast_of_a_tile(self) -> None:
        spec = traced("tile_cast", "x=128x256:int32")
        copy, = find(spec, op="tensor_copy")
        # 512 bf16 elements a partition are all 256 int32 of the tile.
        self.assertNotIn("slices", copy)
        self.assertEqual((copy["tile"], copy["dtype"]), ([128, 512], "bf16"))
        self.check_runs(spec)

    def test_a_cast_counts_the_tile_in_the_new_elements(self) -> None:
        self.assertIn("reads outside the tile of 128 x 512 elements",
                      refusal("tile_cast_outside", "x=128x256:int32"))

    def test_a_view_of_a_tile_as_another_dtype(self) -> None:
        spec = traced("tile_view", "x=128x512:bfloat16")
        act, = find(spec, op="activation")
        self.assertEqual(act["tile"], [128, 256])  # 256 fp32 a partition
        self.assertNotIn("slices", act)  # all of the tile's bytes
        self.check_runs(spec)

    def test_a_scalar_offset_of_a_tile_is_waited_for(self) -> None:
        spec = traced("tile_scalar_offset", "x=128x64:float32")
        memset, = find(spec, op="memset")
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["after"], [memset["id"]])
        self.assertEqual(copy["slices"], [[128, 32]])
        self.check_runs(spec)

    def test_a_vector_offset_indexes_hbm_only(self) -> None:
        self.assertIn("the tensor a vector offset indexes is in HBM",
                      refusal("tile_vector_offset", "x=128x64:float32"))

    def test_an_index_of_a_tile_pattern(self) -> None:
        spec = traced("tile_ap_index", "x=128x64:float32")
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["slices"], [[128, 16]])
        self.check_runs(spec)

    def test_a_reshape_is_a_view_of_the_same_tile(self) -> None:
        spec = traced("tile_reshape", "x=128x512:float32")
        load, = find(spec, op="load")
        red, = find(spec, op="tensor_reduce")
        flat, = find(spec, op="tensor_copy")
        self.assertEqual(load["tile"], [128, 512])
        self.assertEqual(red["inputs"], [load["id"]])
        self.assertEqual(flat["inputs"], [load["id"]])
        self.assertNotIn("slices", flat)
        self.check_runs(spec)

    def test_expand_dims_is_a_view_of_the_same_tile(self) -> None:
        spec = traced("tile_expand_dims", "x=128x64:float32")
        load, = find(spec, op="load")
        red, = find(spec, op="tensor_reduce")
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(red["inputs"], [load["id"]])
        self.assertEqual(copy["inputs"], [load["id"]])
        # Both views move the tile's 128 x 64 elements, and neither is an
        # op of its own: load, reduce, copy, store.
        self.assertEqual((red["tile"], copy["tile"]), ([128, 64], [128, 64]))
        self.assertNotIn("slices", copy)
        self.assertEqual([op.get("op") for chain, op in ops(spec) if chain],
                         ["load", "tensor_reduce", "tensor_copy", "store"])
        self.check_runs(spec)

    def test_expand_dims_at_the_partition_dim_is_refused(self) -> None:
        self.assertIn("not the partition dim (0)",
                      refusal("tile_expand_dims_partition",
                              "x=128x64:float32"))

    def test_a_reshape_across_partitions_is_refused(self) -> None:
        self.assertIn("the partition dim stays (128)",
                      refusal("tile_reshape_partitions", "x=128x64:float32"))


class DmaForms(Runs):
    """The ISA reference's DMA forms: dma_copy between two SBUF tiles (the
    spec's sbuf_copy), dma_transpose of an SBUF tile or of a 3-D HBM
    view."""

    def test_a_copy_between_sbuf_tiles_is_an_sbuf_copy(self) -> None:
        spec = traced("sbuf_to_sbuf", "x=128x512:float32")
        load, = find(spec, op="load")
        copy, = find(spec, op="sbuf_copy")
        store, = find(spec, op="store")
        self.assertEqual(copy["inputs"], [load["id"]])
        self.assertEqual((copy["tile"], copy["dtype"]), ([128, 512], "fp32"))
        self.assertNotIn("engine", copy)  # a DMA
        self.assertEqual(store["inputs"], [copy["id"]])
        self.check_runs(spec)

    def test_the_element_counts_must_match(self) -> None:
        self.assertIn("the element counts must match",
                      refusal("sbuf_to_sbuf_counts", "x=128x512:float32"))

    def test_psum_is_not_a_dmas_side(self) -> None:
        self.assertIn("a DMA reads and writes SBUF or HBM",
                      refusal("psum_dma", "x=128x512:float32"))

    def test_dma_transposes_of_sbuf_and_of_a_3d_view(self) -> None:
        spec = traced("dma_transposes", "x=16x128:bfloat16,y=4x2x64:bfloat16")
        copy, = find(spec, op="sbuf_copy")
        self.assertTrue(copy["transpose"])
        self.assertEqual(copy["tile"], [128, 16])
        loads = [op for op in find(spec, op="load") if op.get("transpose")]
        self.assertEqual(len(loads), 1)
        self.assertEqual(loads[0]["tensor"], "y")
        self.assertEqual(loads[0]["tile"], [64, 8])  # [64, 2, 4]
        self.check_runs(spec)

    def test_an_sbuf_gather_transpose(self) -> None:
        spec = traced("sbuf_gather_transpose",
                      "src=64x4x128:float16,idx=32x1:int32")
        copy, = find(spec, op="sbuf_copy")
        src, idx = find(spec, op="load")
        self.assertEqual(copy["inputs"], [src["id"]])  # the whole tile
        self.assertEqual(copy["indirect"], idx["id"])
        self.assertTrue(copy["transpose"])
        self.assertEqual(copy["tile"], [128, 128])  # [128, 4, 32]
        self.check_runs(spec)

    def test_an_sbuf_gather_is_a_dmas(self) -> None:
        self.assertIn("is read by a DMA",
                      refusal("sbuf_gather_compute",
                              "src=64x128:float16,idx=32x1:int32"))

    def test_only_the_references_permutation(self) -> None:
        self.assertIn("the ISA reference supports axes (2, 1, 0)",
                      refusal("dma_transpose_axes", "y=4x2x64:bfloat16"))


class ElementWrites(Runs):
    def test_a_constant_a_loop_variable_makes_is_a_memset(self) -> None:
        spec = trace(os.path.join(KERNELS, "element_writes.py") +
                     "::element_constants", "x=4x8:int32")
        memsets = find(spec, op="memset")
        self.assertTrue(memsets)
        self.check_runs(spec)


if __name__ == "__main__":
    unittest.main()
