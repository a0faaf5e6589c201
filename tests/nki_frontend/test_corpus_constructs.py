"""Constructs the public NKI corpus uses (issue 44), each as documented and
on a small kernel the project wrote (kernels/corpus_constructs.py):
stepped ranges, gathers (a tile as an HBM index), nl.loop_reduce, index
grids of a higher rank than the tensor. Where the trnbench binary is built,
the traced specs are also run through it (a spec the front end writes
that trnbench rejects is a bug)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from frontend_test_util import (KERNELS, SOURCE, find, ops, run_frontend,
                                trace)

KERNEL = os.path.join(KERNELS, "corpus_constructs.py")
TRNBENCH = os.environ.get("TRNBENCH_BINARY") or os.path.join(
    SOURCE, "build", "trnbench")


def traced(function: str, args: str) -> dict:
    return trace(f"{KERNEL}::{function}", args)


def refusal(function: str, args: str) -> str:
    from nki_frontend.errors import TraceError
    try:
        traced(function, args)
    except TraceError as e:
        return e.line()
    raise AssertionError(f"{function} was not refused")


class Runs(unittest.TestCase):
    """trnbench accepts and runs what the front end wrote."""

    def check_runs(self, spec: dict) -> None:
        if not os.path.isfile(TRNBENCH):
            self.skipTest(f"no trnbench binary at {TRNBENCH}")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "spec.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(spec, f)
            p = subprocess.run([TRNBENCH, "--spec", path, "--repeat", "1"],
                               capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)


class SteppedRanges(Runs):
    def test_a_stepped_range_walks_the_dim_in_its_steps(self) -> None:
        spec = traced("stepped", "x=128x2048:float32")
        loop, = find(spec, var="off")
        self.assertEqual((loop["dim"], loop["step"]), (1, 512))
        load, = find(spec, op="load")
        self.assertEqual(load["index"], [":", "off"])
        self.check_runs(spec)

    def test_the_trip_count_is_the_ranges_length(self) -> None:
        from nki_frontend import core, tracer
        tracer.begin(KERNEL)
        try:
            for args, n in (((0, 2048, 512), 4), ((0, 2049, 512), 5),
                            ((5, 0, -2), 3), ((0, 0, 1), 0), ((3,), 3)):
                self.assertEqual(len(core.LoopRange("sequential", args,
                                                    "range")), n, args)
        finally:
            tracer.end()

    def test_a_descending_walk_is_refused_in_one_line(self) -> None:
        line = refusal("stepped_down", "x=128x2048:float32")
        self.assertIn("corpus_constructs.py:27:", line)
        self.assertIn("step of -512", line)


class Gathers(Runs):
    def test_a_tile_index_is_the_loads_indirect(self) -> None:
        spec = traced("gather", "data=128x512:float32,idx=64:int32")
        idx, rows = find(spec, op="load")
        self.assertEqual(idx["tile"], [64, 1])  # idx[i_p]: the index grid
        self.assertEqual(rows["indirect"], idx["id"])
        self.assertEqual(rows["tile"], [64, 512])
        self.check_runs(spec)

    def test_a_tile_index_of_a_store_is_a_scatter(self) -> None:
        spec = traced("scatter", "data=128x512:float32,idx=64:int32")
        idx, rows = find(spec, op="load")
        store, = find(spec, op="store")
        self.assertEqual(store["indirect"], idx["id"])
        self.assertNotIn("indirect", rows)
        self.check_runs(spec)


class LoopReduce(Runs):
    def test_loop_reduce_accumulates_into_its_destination(self) -> None:
        spec = traced("row_max", "x=512x256:float32")
        loop, = find(spec, var="k")
        red, acc = find(spec, op="tensor_reduce") + find(
            spec, op="tensor_tensor")
        self.assertEqual(acc["inputs"], [red["id"], "m"])
        self.assertEqual(acc["carry"], [acc["id"]])
        self.assertEqual(loop["body"][-1], acc)
        self.check_runs(spec)

    def test_an_unwritten_destination_starts_from_a_fill(self) -> None:
        spec = traced("row_sum_uninitialised", "x=512x256:float32")
        body = spec["kernel"]["loops"][0]["body"]
        self.assertEqual([op["op"] for op in body],
                         ["memset", "loop", "store"])
        self.assertEqual(body[0]["id"], "s")
        self.check_runs(spec)

    def test_a_result_not_written_into_its_destination_is_refused(
            self) -> None:
        line = refusal("loop_reduce_rebound", "x=256x4:float32")
        self.assertIn("corpus_constructs.py:85:", line)


class AccessPatterns(Runs):
    def test_ap_is_a_view_of_the_patterns_shape(self) -> None:
        spec = traced("maxpool_ap", "x=2x6x6:float32")
        red, = find(spec, op="tensor_reduce")
        self.assertEqual(red["tile"], [2, 9])  # [2, 3, 3] after the max
        self.assertNotIn("slices", red)  # all 36 elements of each row
        self.check_runs(spec)

    def test_a_pattern_outside_the_tile_is_refused(self) -> None:
        self.assertIn("reads outside the tile",
                      refusal("ap_outside", "x=128x64:float32"))

    def test_the_partition_step_is_the_free_size(self) -> None:
        self.assertIn("its step is the tile's free size 64",
                      refusal("ap_partition_step", "x=128x64:float32"))


class SteppedSlices(Runs):
    def test_a_stepped_slice_of_a_tile_reads_its_elements(self) -> None:
        spec = traced("even_columns", "x=128x512:float32")
        act, = find(spec, op="activation")
        self.assertEqual(act["tile"], [128, 256])
        load, = find(spec, op="load")
        self.assertEqual(act["slices"], [[128, 256]])
        self.assertEqual(act["inputs"], [load["id"]])
        self.check_runs(spec)

    def test_a_stepped_slice_of_hbm_is_refused_in_one_line(self) -> None:
        line = refusal("hbm_strided", "x=128x512:float32")
        self.assertIn("strided DMA is not yet modelled", line)
        self.assertIn("corpus_constructs.py:", line)


class WideDmas(Runs):
    def test_a_transposing_load_takes_the_sources_free_size(self) -> None:
        spec = traced("transpose_wide", "x=2048x128:float32")
        load, = find(spec, op="load")
        self.assertEqual((load["tile"], load["transpose"]),
                         ([128, 2048], True))
        self.check_runs(spec)

    def test_a_copy_between_hbm_tensors_has_no_partition_limit(
            self) -> None:
        spec = traced("copy_hbm", "a=256x1:float32")
        copy, = find(spec, op="hbm_copy")
        self.assertEqual((copy["tensor"], copy["from"]), ("b", "a"))
        self.check_runs(spec)


class ImplicitIndexing(Runs):
    def test_one_partition_broadcasts_to_the_others(self) -> None:
        # nl.add's reference: [1, 512] is broadcast to [128, 512].
        spec = traced("add_row_to_all", "a=128x512:float32,b=1x512:float32")
        add, = find(spec, op="tensor_tensor")
        self.assertEqual(add["tile"], [128, 512])
        self.assertEqual(add["broadcasts"], [None, 128])
        self.check_runs(spec)

    def test_an_mgrid_is_a_key(self) -> None:
        spec = traced("grid_key", "x=128x512:float32")
        load, = find(spec, op="load")
        self.assertEqual(load["tile"], [128, 512])
        self.check_runs(spec)


class ViewsOfViews(Runs):
    def test_a_view_of_a_view_adds_the_offsets(self) -> None:
        spec = traced("views_of_views", "x=512x1024:float32")
        load, = find(spec, op="load")
        self.assertEqual(load["index"], ["128:256", "0:512"])
        act, = find(spec, op="activation")
        self.assertEqual(act["tile"], [64, 256])
        self.assertEqual(act["slices"], [[64, 256]])
        self.check_runs(spec)


class Stores(Runs):
    """A store moves the block its index names (issue 44: the front end
    wrote "slices" and "broadcasts" on stores, which the format refuses)."""

    def test_a_store_of_part_of_a_tile(self) -> None:
        spec = traced("store_columns", "x=128x512:float32")
        store, = find(spec, op="store")
        self.assertNotIn("slices", store)
        self.check_runs(spec)

    def test_a_store_of_a_broadcast_row(self) -> None:
        spec = traced("store_broadcast", "x=1x64:float32")
        store, = find(spec, op="store")
        self.assertNotIn("broadcasts", store)
        self.check_runs(spec)


class LazyZeros(Runs):
    def test_lazily_zeroed_psum_is_not_filled_whole(self) -> None:
        # NKIBench's nl.zeros(..., buffer=nl.psum, lazy_initialization=
        # True): each logical tile lives in its own iteration.
        spec = traced("lazy_psum", "a=128x1024:bfloat16,b=128x512:bfloat16")
        self.assertEqual(find(spec, op="memset"), [])
        mm, = find(spec, op="matmul")
        self.assertEqual(mm["tile"], [128, 512])
        self.check_runs(spec)


class PythonAsWritten(Runs):
    """Classes, comprehensions, closures and `nki.jit(f, mode=...)`
    (kernels/python_constructs.py)."""

    PY = os.path.join(KERNELS, "python_constructs.py")

    def check(self, function: str) -> None:
        spec = trace(f"{self.PY}::{function}", "x=512x256:float32")
        loads = find(spec, op="load")
        # The comprehension makes one tile per block: four loads.
        self.assertEqual([ld["index"][0] for ld in loads],
                         ["0:128", "128:256", "256:384", "384:512"])
        self.assertEqual(len(find(spec, op="store")), 4)
        self.check_runs(spec)

    def test_a_class_a_comprehension_and_a_closure(self) -> None:
        self.check("exp_blocks")

    def test_the_jit_call_form(self) -> None:
        self.check("exp_blocks_jit")

    def test_nki_classes_are_data_classes(self) -> None:
        # A field without a default after one with a default, and a
        # class-level value set by keyword (the language guide's default
        # initializer, then __post_init__).
        self.check("exp_blocks_nki_classes")

    def test_program_id_of_a_single_program_is_an_int(self) -> None:
        spec = trace(f"{self.PY}::first_program_exp[1]", "x=128x512:float32")
        act, = find(spec, op="activation")
        self.assertEqual(act["func"], "exp")
        self.check_runs(spec)

    def test_programs_allocating_different_hbm_are_refused(self) -> None:
        from nki_frontend.errors import TraceError
        with self.assertRaises(TraceError) as e:
            trace(f"{self.PY}::per_program_output[2]", "x=128x512:float32")
        line = e.exception.line()
        self.assertIn("python_constructs.py:", line)
        self.assertIn("program (1,) allocates HBM tensors the first "
                      "program did not (a [128, 512]", line)

    def test_a_branch_on_todays_program_id_traces_each_program(
            self) -> None:
        # Two programs: a decision on the index (the NKI Library's `if
        # prg_id == 0:`) traces each program's body in turn, the HBM
        # tensors the first allocates shared.
        spec = trace(f"{self.PY}::first_program_exp[2]", "x=128x512:float32")
        self.assertEqual([op["op"] for _, op in ops(spec)
                          if op.get("op", "loop") != "loop"],
                         ["load", "activation", "store", "load", "store"])
        self.assertEqual([x["name"] for x in spec["tensors"]
                          if not x["name"].startswith("iter_")],
                         ["x", "out"])
        self.check_runs(spec)

    def test_an_nki_class_refuses_an_unknown_field(self) -> None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("pc", self.PY)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        self.assertEqual(mod.Section(scale=2.0).scale, 2.0)
        self.assertEqual(mod.Section().scale, 1.0)  # __post_init__ ran
        self.assertIsNone(mod.Blocks().count)  # the guide's default: None
        with self.assertRaises(TypeError):
            mod.Section(shift=1)


class ConfigurationObjects(Runs):
    """`--kwarg NAME=py:EXPR`: EXPR evaluated in the kernel's module."""

    KERNEL = os.path.join(KERNELS, "config_objects.py") + "::exp_tiles"

    def test_a_dataclass_from_the_kernels_module(self) -> None:
        rc, err, spec, _ = run_frontend(self.KERNEL, "x=128x1024:float32",
                                        ("cfg=py:ExpConfig(tile=256)",))
        self.assertEqual(rc, 0, err)
        loop, = find(spec, var="j")
        self.assertEqual(loop["step"], 256)  # 4 tiles of 256
        self.assertEqual(spec["kernel_source"]["kwargs"],
                         {"cfg": "py:ExpConfig(tile=256)"})
        self.check_runs(spec)

    def test_a_factory_and_an_api_value(self) -> None:
        rc, err, spec, _ = run_frontend(
            self.KERNEL, "x=128x1024:float32",
            ("cfg=py:make_config(1024)", "op=py:nl.sigmoid"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(find(spec, var="j")[0]["step"], 512)
        act, = find(spec, op="activation")
        self.assertEqual(act["func"], "sigmoid")

    def test_bad_expressions_are_bad_input_in_one_line(self) -> None:
        for kw, want in (("cfg=py:ExpConfig(", "not a Python expression"),
                         ("cfg=py:NoSuchConfig()", "NameError"),
                         ("cfg=py:ExpConfig(bad=1)", "TypeError")):
            with self.subTest(kw):
                rc, err, _, exists = run_frontend(
                    self.KERNEL, "x=128x1024:float32", (kw,))
                self.assertEqual(rc, 2, err)
                self.assertFalse(exists)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(want, err)
                self.assertIn("--kwarg cfg=", err)


class SecondOutputs(Runs):
    def test_match_replace_writes_its_indices(self) -> None:
        spec = traced("match_replace_indices", "x=128x512:float32")
        mr = [op for op in find(spec, op="tensor_scalar")]
        self.assertEqual(len(mr), 1)
        copy, = find(spec, op="tensor_copy")  # the indices, read from it
        self.assertEqual(copy["inputs"], [mr[0]["id"]])
        self.assertEqual(copy["tile"], [128, 8])
        store, = [s for s in find(spec, op="store") if s["tensor"] == "idx"]
        self.assertEqual(store["inputs"], [copy["id"]])
        self.check_runs(spec)

    def test_the_indices_beside_a_3d_result(self) -> None:
        # The reference flattens the free dims: 8 elements of [4, 4] are
        # its first two rows.
        spec = traced("match_replace_3d", "x=128x4x4:float32")
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["tile"], [128, 8])
        self.assertEqual(copy["slices"], [[128, 8]])  # of the [128, 16]
        self.check_runs(spec)


class MaskedStores(Runs):
    def test_a_masked_store_moves_the_rows_its_mask_keeps(self) -> None:
        spec = traced("masked_store_rows", "x=128x512:float32")
        store, = find(spec, op="store")
        self.assertEqual(store["index"], [":", ":"])  # all of [64, 512]
        copy, = find(spec, op="tensor_copy")  # the part the store moves
        self.assertEqual(copy["tile"], [64, 512])
        self.assertEqual(store["inputs"], [copy["id"]])
        self.check_runs(spec)

    def test_clip_to_mask_combines_conditions(self) -> None:
        from nki_frontend import ir
        from nki_frontend.expr import Affine, Axis
        from nki_frontend.indexing import clip_to_mask
        ip, jf = Axis(128, 0, 2, 1), Axis(512, 1, 2, 1)
        dims = [ir.DimAccess(Affine({}, 0), 128, False, 0),
                ir.DimAccess(Affine({}, 0), 512, False, 1)]
        mask = (Affine({ip: 1}) < 64) & (Affine({jf: 1}) <= 255)
        self.assertEqual([d.extent for d in clip_to_mask(dims, mask)],
                         [64, 256])
        self.assertEqual([d.extent for d in dims], [128, 512])  # unchanged


class RangeLoops(Runs):
    """A Python `range`'s variable is an int the kernel may compute with;
    the loop is cut only where a decision on it changes, so the spec stays
    a loop (kernels/range_loops.py)."""

    RANGE = os.path.join(KERNELS, "range_loops.py")

    def traced(self, function: str, args: str) -> dict:
        return trace(f"{self.RANGE}::{function}", args)

    def refusal(self, function: str, args: str) -> str:
        from nki_frontend.errors import TraceError
        try:
            self.traced(function, args)
        except TraceError as e:
            return e.line()
        raise AssertionError(f"{function} was not refused")

    def test_min_on_the_variable_cuts_off_the_tail(self) -> None:
        spec = self.traced("exp_rows_tail", "x=1100x512:float32")
        loop, = find(spec, var="i")
        self.assertEqual(loop["range"], "sequential")
        self.assertEqual(len(loop["body"]), 3)  # 8 full tiles, one loop
        tail = [op for op in find(spec, op="load") if op not in loop["body"]]
        self.assertEqual([op["tile"] for op in tail], [[76, 512]])
        self.assertEqual(tail[0]["index"], ["1024:1100", ":"])
        self.check_runs(spec)

    def test_the_spec_is_at_most_twice_the_affine_ones(self) -> None:
        # The bound: the same kernel with nl.affine_range and a
        # mask for the tail.
        ranged = self.traced("exp_rows_tail", "x=1100x512:float32")
        affine = self.traced("exp_rows_masked", "x=1100x512:float32")
        size = [len(json.dumps(s["kernel"])) for s in (ranged, affine)]
        self.assertLessEqual(size[0], 2 * size[1], size)

    def test_the_same_kernel_with_todays_affine_range(self) -> None:
        # Written with nl.affine_range (today an alias of range), the
        # same kernel: the same loop and tail, the loop kind aside.
        ranged = self.traced("exp_rows_tail", "x=1100x512:float32")
        affine = self.traced("exp_rows_tail_affine", "x=1100x512:float32")
        size = [len(json.dumps(s["kernel"])) for s in (ranged, affine)]
        self.assertLessEqual(size[0], 2 * size[1], size)
        loop, = find(affine, var="i")
        self.assertEqual(loop["range"], "affine")
        self.assertEqual(len(find(affine, op="load")), 2)
        self.check_runs(affine)

    def test_a_triangular_nest_unrolls_the_outer_loop_only(self) -> None:
        spec = self.traced("triangular", "x=512x64:float32")
        inner = find(spec, var="j")
        self.assertEqual(len(inner), 4)  # one per i, each still a loop
        self.assertEqual(find(spec, var="i"), [])
        stores = find(spec, op="store")
        self.assertEqual([s["index"][0] for s in stores],
                         ["0:128", "128:256", "256:384", "384:512"])
        self.check_runs(spec)

    def test_divmod_of_the_variable_is_floordiv_and_remainder(
            self) -> None:
        spec = self.traced("exp_flat_walk", "x=256x1024:float32")
        loads = find(spec, op="load")
        self.assertEqual([ld["index"] for ld in loads],
                         [["0:128", "0:512"], ["0:128", "512:1024"],
                          ["128:256", "0:512"], ["128:256", "512:1024"]])
        self.check_runs(spec)

    def test_a_decision_on_the_first_iteration_cuts_it_off(self) -> None:
        # The piece after it starts at tile 1, which a spec loop's index
        # cannot say: its 3 iterations are traced one by one.
        spec = self.traced("first_special", "x=128x2048:float32")
        self.assertEqual(find(spec, var="i"), [])
        self.assertEqual([ld["index"][1] for ld in find(spec, op="load")],
                         ["0:512", "512:1024", "1024:1536", "1536:2048"])
        acts = [op.get("func") for op in find(spec, op="activation")]
        self.assertEqual(acts, ["exp", "tanh", "tanh", "tanh"], acts)
        self.check_runs(spec)

    def test_a_late_piece_indexing_from_the_start_stays_a_loop(
            self) -> None:
        spec = self.traced("shifted_after_first", "x=512x64:float32")
        loop, = find(spec, var="i")
        load, = find(spec, op="load")
        self.assertIn(load, loop["body"])
        self.assertEqual(load["index"], ["i", ":"])
        self.check_runs(spec)

    def test_a_late_piece_of_too_many_iterations_is_refused(self) -> None:
        line = self.refusal("first_special", "x=128x262144:float32")
        self.assertIn("range_loops.py:", line)
        self.assertIn("indexing x by i from iteration 1", line)
        self.assertIn("each of its 511 iterations", line)

    def test_too_many_iterations_to_trace_one_by_one(self) -> None:
        line = self.refusal("needs_every_value", "x=128x1024:float32")
        self.assertIn("range_loops.py:", line)
        self.assertIn("each of its 256 iterations", line)

    def test_an_sdk2x_affine_ranges_variable_stays_symbolic(self) -> None:
        from nki_frontend.errors import TraceError
        with self.assertRaises(TraceError) as e:
            trace(os.path.join(KERNELS, "range_loops_sdk2x.py") +
                  "::affine_decision", "x=128x2048:float32")
        self.assertIn("cannot be traced symbolically", e.exception.line())

    def test_todays_affine_range_is_pythons_range(self) -> None:
        # The 2026-08 reference: affine_range "is an alias for Python's
        # range()"; the loop stays affine, cut where the decision changes.
        spec = self.traced("affine_first_special", "x=128x2048:float32")
        loop, = find(spec, var="i")
        self.assertEqual(loop["range"], "affine")
        tail = [op for op in find(spec, op="load") if op not in loop["body"]]
        self.assertEqual([op["index"] for op in tail], [[":", "1536:2048"]])
        acts = [op.get("func") for op in find(spec, op="activation")]
        self.assertEqual(acts, ["exp"], acts)  # the last iteration only
        self.check_runs(spec)

    def test_a_slice_sized_by_the_variable_is_each_iterations_own(
            self) -> None:
        # n = 64 - 16 * i: four stores of 64, 48, 32 and 16 columns (the
        # loop traced an iteration at a time), not a refusal.
        spec = self.traced("shrinking_slices", "x=128x64:float32")
        self.assertEqual([op["index"] for op in find(spec, op="store")],
                         [[":", ":"], [":", "0:48"], [":", "0:32"],
                          [":", "0:16"]])
        self.check_runs(spec)

    def test_loop_variables_that_cancel_compare_as_numbers(self) -> None:
        spec = self.traced("cancelled_rows", "x=512x256:float32")
        self.assertEqual(find(spec, op="memset"), [])  # rows < 128: never
        self.check_runs(spec)

    def test_a_loop_no_spec_loop_says_is_traced_per_iteration(
            self) -> None:
        spec = self.traced("two_outputs_in_place", "x=128x512:float32")
        self.assertEqual(find(spec, var="k"), [])
        # max8 and the sum (both tensor_reduce), once per iteration.
        self.assertEqual(len(find(spec, op="tensor_reduce")), 4)
        self.check_runs(spec)

    def test_unrolling_past_what_a_spec_holds_stops_early(self) -> None:
        import time
        start = time.process_time()
        line = self.refusal("unrolls_too_far", "x=128x512:float32")
        self.assertIn("range_loops.py:", line)
        self.assertIn("the kernel unrolls too far: more than 12000 ops", line)
        self.assertLess(time.process_time() - start, 30)

    def test_true_division_of_the_variable_is_a_value(self) -> None:
        spec = self.traced("true_division", "x=128x1280:float32")
        self.assertEqual([ld["index"][1] for ld in find(spec, op="load")],
                         ["0:512", "512:896"])
        self.check_runs(spec)

    def test_and_of_decisions_is_pythons(self) -> None:
        spec = self.traced("and_of_decisions", "x=128x2048:float32")
        loop, = find(spec, var="i")  # 0..2 a loop, 3 on its own
        tail = [op for op in find(spec, op="load") if op not in loop["body"]]
        self.assertEqual([op["index"] for op in tail], [[":", "1536:2048"]])
        self.assertEqual(len(find(spec, op="activation")), 1)
        self.check_runs(spec)

    def test_arithmetic_on_a_buffer_index_traces_each_iteration(
            self) -> None:
        # The nc_matmul reference's tile_position=((i % 2) * 64, ...) in
        # an nl.affine_range: a value per iteration.
        spec = self.traced("halves", "x=512x128:float32")
        self.assertEqual(find(spec, var="i"), [])
        loads = find(spec, op="load")
        self.assertEqual([ld["index"][0] for ld in loads],
                         ["0:128", "128:256", "256:384", "384:512"])
        self.check_runs(spec)

    def test_pieces(self) -> None:
        from nki_frontend import loops
        self.assertEqual(loops.pieces(9, None), [(0, 9)])
        self.assertEqual(loops.pieces(9, {8}), [(0, 8), (8, 1)])
        self.assertEqual(loops.pieces(9, {0, 1, 9}), [(0, 1), (1, 8)])
        self.assertEqual(loops.pieces(3, {1, 2}), [(0, 1), (1, 1), (2, 1)])


class AndOfPredicates(unittest.TestCase):
    """A kernel file's `and` is compiled as expr.predicate_and: two index
    predicates make one mask (the nc_match_replace8 reference's
    `mask=(ix < n // 2 and iy < m // 2)`), anything else is Python's."""

    def test_index_predicates_make_one_mask(self) -> None:
        from nki_frontend.expr import (Affine, Axis, Conjunction,
                                       predicate_and)
        ix, iy = Axis(128, 0, 2, 1), Axis(512, 1, 2, 1)
        both = predicate_and(Affine({ix: 1}) < 64, lambda: Affine({iy: 1})
                             < 256)
        self.assertIsInstance(both, Conjunction)
        self.assertEqual([p.op for p in both.parts()], ["<", "<"])

    def test_pythons_and_elsewhere(self) -> None:
        import ast
        from nki_frontend import lists
        from nki_frontend.expr import predicate_and
        src = ("def f(a, b):\n    return a and 1 // b and 'last'\n"
               "class C:\n    x = 1\n    y = True and x\n"
               "class D(C):\n    def g(self):\n"
               "        return self and super().__init__ is not None\n")
        ns = {"__nki_and__": predicate_and}
        exec(lists.rewrite(ast.parse(src), "<k>"), ns)
        self.assertEqual(ns["f"](0, 0), 0)  # short-circuit: no 1 // 0
        self.assertEqual(ns["f"](1, 2), 0)
        self.assertEqual(ns["f"](1, 1), "last")
        with self.assertRaises(ZeroDivisionError):
            ns["f"](1, 0)
        self.assertEqual(ns["C"].y, 1)  # a class body's `and` is Python's
        self.assertTrue(ns["D"]().g())  # super() keeps its method


if __name__ == "__main__":
    unittest.main()
