"""The NKI front end on small kernels the project wrote, one per API
generation and construct (tests/nki_frontend/kernels/)."""

from __future__ import annotations

import hashlib
import os
import tempfile
import unittest

from frontend_test_util import KERNELS, find, ops, run_frontend, trace


def k(name: str) -> str:
    return os.path.join(KERNELS, name)


class SeedExpKernel(unittest.TestCase):
    """The seed's tiled exp kernel (SDK 2.21 API, masks, partial tile)."""

    def setUp(self) -> None:
        self.path = k("exp_seed.py")
        rc, err, spec, _ = run_frontend(
            f"{self.path}::tensor_exp_kernel_", "in_tensor=250x512:float32")
        self.assertEqual(rc, 0, err)
        self.spec = spec

    def test_loop_walks_row_tiles(self) -> None:
        loop, = self.spec["kernel"]["loops"]
        self.assertEqual(loop["var"], "p")
        self.assertEqual(loop["range"], "affine")
        self.assertEqual(loop["tensor"], "in_tensor")
        self.assertEqual(loop["tile_partitions"], 128)
        self.assertNotIn("buffers", loop)  # the compiler stage decides

    def test_mask_is_a_predicate(self) -> None:
        # mask= is a predicate of the instruction (model 11): no iota, no
        # compare, nothing for the load or store to wait for.
        body = self.spec["kernel"]["loops"][0]["body"]
        kinds = [op["op"] for op in body]
        self.assertEqual(kinds, ["load", "activation", "store"])
        load, act, store = body
        self.assertNotIn("engine", act)
        self.assertIs(load["affine_mask"], True)
        self.assertIs(store["affine_mask"], True)
        self.assertNotIn("mask", load)
        self.assertNotIn("affine_mask", act)
        self.assertEqual(act["func"], "exp")
        self.assertEqual(store["inputs"], [act["id"]])

    def test_lines_are_the_files(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for _, op in ops(self.spec):
            if "line" in op:
                src = lines[op["line"] - 1]
                want = {"load": "nl.load", "activation": "nl.exp",
                        "store": "nl.store"}
                self.assertIn(want[op["op"]], src, op)
        self.assertEqual(self.spec["kernel"]["source_file"], "exp_seed.py")

    def test_provenance(self) -> None:
        ks = self.spec["kernel_source"]
        with open(self.path, "rb") as f:
            self.assertEqual(ks["sha256"], hashlib.sha256(f.read()).hexdigest())
        self.assertEqual(ks["function"], "tensor_exp_kernel_")
        self.assertEqual(ks["args"], {"in_tensor": "250x512:float32"})
        self.assertEqual(self.spec["name"], "tensor_exp_kernel_")


class Masks(unittest.TestCase):
    """mask= on a free index and combined with &, on a compute op too."""

    def test_free_axis_and_combined_masks_are_predicates(self) -> None:
        spec = trace(f"{k('masks.py')}::masked_columns",
                     "in_tensor=128x1000:float32")
        kinds = [op.get("op") for _, op in ops(spec)]
        self.assertNotIn("iota", kinds)
        self.assertNotIn("tensor_scalar", kinds)
        load, = find(spec, op="load")
        add, = find(spec, op="tensor_tensor")
        store, = find(spec, op="store")
        for op in (load, add, store):
            self.assertIs(op["affine_mask"], True, op)
            self.assertNotIn("mask", op)

    def test_every_op_taking_mask_writes_the_predicate(self) -> None:
        # nl and nisa functions with a mask= that are not elementwise ALU
        # ops predicate their instruction the same way; an op without one
        # (the load, the store) has none.
        spec = trace(f"{k('masks.py')}::masked_ops",
                     "in_tensor=128x128:float32")
        kinds = [op.get("op") for _, op in ops(spec)]
        self.assertNotIn("iota", kinds)
        masked = [op for _, op in ops(spec)
                  if op.get("op") in ("reciprocal", "transpose", "matmul",
                                      "tensor_scalar", "activation")]
        self.assertEqual(len(masked), 5, kinds)
        for op in masked:
            self.assertIs(op.get("affine_mask"), True, op)
            self.assertNotIn("mask", op)
        for kind in ("load", "store"):
            op, = find(spec, op=kind)
            self.assertNotIn("affine_mask", op)


class OldApiMatmul(unittest.TestCase):
    def test_psum_accumulator_over_k(self) -> None:
        spec = trace(f"{k('old_api_matmul.py')}::matmul_tiled",
                     "lhsT=512x256:bfloat16,rhs=512x1024:bfloat16")
        acc, = find(spec, op="loop", var="k")
        self.assertEqual(acc["id"], "acc")
        self.assertEqual((acc["tensor"], acc["tile_partitions"]), ("lhsT", 128))
        mm, = find(spec, op="matmul")
        self.assertEqual(mm["engine"], "tensor")
        self.assertEqual(mm["tile"], [128, 512])
        self.assertEqual(mm["buffer"], "psum")
        self.assertEqual(mm["inputs"], ["a", "b"])
        self.assertEqual(find(spec, op="load", id="a")[0]["index"], ["k", "m"])
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["inputs"], ["acc"])
        self.assertEqual(copy["dtype"], "bf16")
        self.assertFalse(find(spec, op="memset"))  # the matmul zeroes PSUM
        n, = find(spec, op="loop", var="n")
        self.assertEqual((n["tensor"], n["dim"], n["step"]), ("rhs", 1, 512))
        self.assertNotIn("insert_transpose", mm)

    def test_matmul_of_an_untransposed_operand_asks_for_a_transpose(
            self) -> None:
        spec = trace(f"{k('old_api_matmul.py')}::matmul_untransposed",
                     "lhs=256x512:bfloat16,rhs=512x1024:bfloat16")
        mm, = find(spec, op="matmul")
        self.assertTrue(mm["insert_transpose"])
        self.assertEqual(mm["tile"], [128, 512])
        self.assertEqual(find(spec, op="load", id="a")[0]["index"], ["m", "k"])


class NewApi(unittest.TestCase):
    def test_dma_copy_nc_matmul_dst_engines(self) -> None:
        spec = trace(f"{k('new_api_kernel.py')}::scaled_matmul",
                     "lhsT=512x256:bfloat16,rhs=512x512:bfloat16,"
                     "bias=256x1:float32")
        res, = find(spec, op="loop", var="k")
        self.assertEqual(res["range"], "sequential")
        self.assertEqual(res["id"], "res")
        self.assertEqual(len(find(spec, op="load")), 3)
        act, = find(spec, op="activation")
        self.assertEqual(act["engine"], "scalar")
        self.assertEqual(act["inputs"], ["sb", "bias_t"])
        tt, = find(spec, op="tensor_tensor")
        self.assertEqual(tt["engine"], "vector")  # engine=nisa.vector_engine
        for copy in find(spec, op="tensor_copy"):
            self.assertNotIn("engine", copy)
        store, = find(spec, op="store")
        self.assertEqual(store["inputs"], ["res_out"])
        self.assertEqual(store["index"], ["m", ":"])

    def test_todays_identity_matrix_is_a_tile_in_sbuf(self) -> None:
        spec = trace(f"{k('new_api_kernel.py')}::identity_transpose",
                     "x=128x64:bfloat16")
        identity = [x for x in spec["tensors"] if x["name"] == "identity"]
        self.assertEqual(identity[0]["shape"], [128, 128])
        load = [ld for ld in find(spec, op="load")
                if ld["tensor"] == "identity"]
        self.assertEqual(len(load), 1)
        mm, = find(spec, op="matmul")
        self.assertIn(load[0]["id"], mm["inputs"])

    def test_compiler_allocated_tensor_is_an_sbuf_tensor(self) -> None:
        spec = trace(f"{k('new_api_kernel.py')}::auto_allocated",
                     "x=128x64:float32")
        load, = find(spec, op="load")
        self.assertEqual((load["id"], load["tile"]), ("t", [128, 64]))
        self.assertNotIn("buffer", load)  # SBUF, allocated by the compiler

    def test_tensor_scalar_waits_for_both_operand_tiles(self) -> None:
        spec = trace(f"{k('new_api_kernel.py')}::shift_and_scale",
                     "x=128x512:float32,shift=128x1:float32,"
                     "scale=128x1:float32")
        ts, = find(spec, op="tensor_scalar")
        self.assertEqual(ts["inputs"], ["t", "s"])
        self.assertEqual(ts["after"], ["c"])

    def test_tensor_scalar_records_its_operators(self) -> None:
        # "alu": op0 then op1, by the NKI reference's operator names
        # (NumPy's ufuncs named alike); model 14 places by them.
        spec = trace(f"{k('new_api_kernel.py')}::scalar_operators",
                     "x=128x512:float32,scale=128x1:float32")
        alus = [op.get("alu") for op in find(spec, op="tensor_scalar")]
        self.assertEqual(alus, [["multiply", "add"], ["maximum"],
                                ["multiply"], ["subtract"]])
        spec = trace(f"{k('new_api_kernel.py')}::shift_and_scale",
                     "x=128x512:float32,shift=128x1:float32,"
                     "scale=128x1:float32")
        ts, = find(spec, op="tensor_scalar")
        self.assertEqual(ts["alu"], ["subtract", "multiply"])

    def test_loop_kinds(self) -> None:
        spec = trace(f"{k('new_api_kernel.py')}::loop_kinds", "x=256x64:float32")
        top, = spec["kernel"]["loops"]
        self.assertEqual(top["range"], "static")
        inner, = find(spec, op="loop", var="j")
        self.assertEqual(inner["range"], "sequential")  # Python's range
        memset, = find(spec, op="memset")
        self.assertNotIn("engine", memset)


class IntegerIndex(unittest.TestCase):
    def test_the_loop_walks_the_tiled_dim(self) -> None:
        spec = trace(f"{k('integer_index.py')}::columns_from_slots",
                     "y=4x128x128:float32")
        loop, = [l for l in spec["kernel"]["loops"] if l["var"] == "k"]
        self.assertEqual((loop["tensor"], loop["dim"], loop["step"]),
                         ("out", 1, 128))
        load, = find(spec, op="load")
        self.assertEqual(load["index"], ["k", ":", ":"])


class Blocks(unittest.TestCase):
    def test_sbuf_array_of_tiles_is_a_block(self) -> None:
        spec = trace(f"{k('blocks.py')}::hoisted",
                     "lhsT=512x256:bfloat16,rhs=512x1024:bfloat16")
        block, = find(spec, op="loop", id="lhsT_tiles")
        self.assertEqual(block["var"], "k")
        self.assertEqual(block["body"][0]["op"], "load")
        mm, = find(spec, op="matmul")
        self.assertEqual(mm["inputs"][0], "lhsT_tiles[k]")

    def test_a_loop_filling_two_arrays_is_two_loops(self) -> None:
        spec = trace(f"{k('blocks.py')}::two_results", "x=512x64:float32")
        rows, = find(spec, op="loop", id="rows")
        maxes, = find(spec, op="loop", id="maxes")
        self.assertEqual((rows["var"], maxes["var"]), ("r", "r"))
        self.assertEqual([op["op"] for op in rows["body"]], ["load"])
        reduce, = maxes["body"]
        # The max reads the slot this iteration loaded, not the block.
        self.assertEqual(reduce["inputs"], ["rows[r]"])
        self.assertEqual(reduce["line"], rows["body"][0]["line"] + 1)
        around = next(chain for chain, op in ops(spec) if op is rows)
        siblings = around[-1]["body"]
        self.assertIs(siblings[siblings.index(rows) + 1], maxes)
        readers = [op for _, op in ops(spec)
                   if "maxes" in op.get("inputs", [])]
        self.assertEqual(len(readers), 1)

    def test_sbuf_accumulation_carries_its_tile(self) -> None:
        spec = trace(f"{k('blocks.py')}::sum_rows", "x=512x64:float32,s=2.0")
        tt, = find(spec, op="tensor_tensor")
        self.assertEqual(tt["carry"], [tt["id"]])
        self.assertIn("total", tt["inputs"])  # the zeros before the loop
        loop, = find(spec, op="loop", var="r")
        store, = find(spec, op="store")
        self.assertEqual(store["inputs"], [loop["id"]])


class Reductions(unittest.TestCase):
    """reduce_res=: one instruction, two outputs; the second is a
    "reduction" op (docs/spec-format.md, "Reductions")."""

    def test_slots_of_a_loop_are_a_reduction_of_the_loop(self) -> None:
        spec = trace(f"{k('reductions.py')}::softmax_sums",
                     "x=512x64:float32")
        act, = find(spec, op="activation")
        self.assertTrue(act["accumulate"])
        exp_loop, = find(spec, op="loop", id="e")
        red, = find(spec, op="reduction")
        self.assertEqual((red["id"], red["inputs"], red["tile"]),
                         ("sums", ["e"], [128, 1]))
        self.assertEqual(red["line"], act["line"])
        # Right after the loop whose iterations made the sums.
        around = next(chain for chain, op in ops(spec) if op is exp_loop)
        body = around[-1]["body"]
        self.assertIs(body[body.index(exp_loop) + 1], red)
        rcp, = find(spec, op="reciprocal")
        self.assertEqual(rcp["inputs"], ["sums[r]"])  # by slot
        total, = find(spec, op="tensor_reduce")
        self.assertEqual(total["inputs"], ["sums"])  # whole

    def test_a_tile_of_the_ops_own_body_follows_the_op(self) -> None:
        spec = trace(f"{k('reductions.py')}::row_max_here",
                     "x=256x64:float32")
        loop, = spec["kernel"]["loops"]
        kinds = [op["op"] for op in loop["body"]]
        self.assertEqual(kinds, ["load", "tensor_scalar", "reduction",
                                 "tensor_scalar", "store"])
        ts, red, sub = loop["body"][1:4]
        self.assertTrue(ts["accumulate"])
        self.assertEqual(ts["engine"], "vector")
        self.assertEqual(red["inputs"], [ts["id"]])
        self.assertEqual(sub["inputs"], [ts["id"], red["id"]])


class Transposes(unittest.TestCase):
    """VectorE transposes at most [32, 32], TensorE up to [128, 128] into
    PSUM (NKI ISA reference, nc_transpose)."""

    def test_a_large_transpose_into_sbuf_is_tensore_and_a_copy(self) -> None:
        spec = trace(f"{k('transposes.py')}::transpose_tiles",
                     "x=128x512:bfloat16")
        tr, = find(spec, op="transpose")
        self.assertEqual((tr["engine"], tr["buffer"], tr["tile"]),
                         ("tensor", "psum", [128, 128]))
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["inputs"], [tr["id"]])
        # The copy fills one [128, 128] slot of the block, not all of it.
        self.assertEqual(copy["tile"], [128, 128])
        self.assertNotIn("engine", copy)  # the compiler stage's
        self.assertEqual(copy["line"], tr["line"])
        # The store reads the slot whole: no slice of it.
        store, = find(spec, op="store")
        block = next(op for _, op in ops(spec)
                     if op.get("op") == "loop" and copy in op["body"])
        self.assertEqual(store["inputs"], [block["id"] + "[j]"])
        self.assertNotIn("slices", store)

    def test_a_small_transpose_is_left_to_the_compiler(self) -> None:
        spec = trace(f"{k('transposes.py')}::small_transpose",
                     "x=32x32:bfloat16")
        tr, = find(spec, op="transpose")
        self.assertNotIn("engine", tr)
        self.assertNotIn("buffer", tr)

    def test_a_large_transpose_on_vectore_is_refused(self) -> None:
        rc, err, _, exists = run_frontend(
            f"{k('transposes.py')}::big_transpose_on_vector",
            "x=128x128:bfloat16")
        self.assertEqual(rc, 2, err)
        self.assertFalse(exists)
        self.assertIn("VectorE transposes at most [32, 32]", err)


class Privatized(unittest.TestCase):
    """Arrays allocated outside a loop that each iteration writes anew are
    the loop's own (NKI block dimension migration guide; docs/nki-source.md,
    "Arrays allocated outside a loop")."""

    def test_one_buffer_every_iteration_reloads(self) -> None:
        spec = trace(f"{k('privatized.py')}::reused_buffer",
                     "x=512x512:float32")
        loop, = spec["kernel"]["loops"]
        load, act, _ = loop["body"]
        self.assertTrue(load["one_buffer"])
        self.assertEqual(act["inputs"], [load["id"]])
        self.assertNotIn("one_buffer", act)  # a tile of the body

    def test_a_block_dimension_each_iteration_uses_alone(self) -> None:
        # 16 [128, 128] fp32 PSUM tiles would be 16 banks as a block; each
        # is the iteration's own tile, one bank.
        spec = trace(f"{k('privatized.py')}::psum_tile_per_iteration",
                     "x=2048x128:bfloat16")
        loop, = spec["kernel"]["loops"]
        self.assertEqual([op["op"] for op in loop["body"]],
                         ["load", "transpose", "tensor_copy", "store"])
        self.assertNotIn("one_buffer", loop["body"][1])

    def test_a_buffer_index_gives_the_tile_its_buffers(self) -> None:
        # t[:, i % 2, :]: the buffer dim is not part of the tile, and the
        # load's tile has two buffers over i (docs/spec-format.md).
        spec = trace(f"{k('rotated.py')}::two_buffers", "x=512x512:float32")
        loop, = spec["kernel"]["loops"]
        load, act, _ = loop["body"]
        self.assertEqual(load["tile_buffers"], 2)
        self.assertNotIn("one_buffer", load)
        self.assertEqual(load["tile"], [128, 512])
        self.assertEqual(act["inputs"], [load["id"]])

    def test_mod_alloc_gives_a_block_dim_its_physical_tiles(self) -> None:
        spec = trace(f"{k('rotated.py')}::placed_banks", "x=2048x128:bfloat16")
        loop, = spec["kernel"]["loops"]
        transpose = loop["body"][1]
        self.assertEqual(transpose["op"], "transpose")
        self.assertEqual(transpose["tile_buffers"], 4)

    def test_alloc_by_a_modulo_function_is_its_mod_alloc(self) -> None:
        # The SDK 2.26 reference: alloc(func) asks func where each logical
        # tile goes; a placement periodic per block dim is a mod_alloc.
        spec = trace(f"{k('rotated.py')}::placed_by_function",
                     "x=2048x128:bfloat16")
        loop, = spec["kernel"]["loops"]
        transpose = loop["body"][1]
        self.assertEqual(transpose["op"], "transpose")
        self.assertEqual(transpose["tile_buffers"], 4)

    def test_alloc_placements_the_format_cannot_say_are_refused(
            self) -> None:
        from nki_frontend.errors import TraceError
        for fn, want in (("placed_irregularly", "not a modulo allocation"),
                         ("placed_nowhere", "a tuple of 3 integers")):
            with self.subTest(fn), self.assertRaises(TraceError) as e:
                trace(f"{k('rotated.py')}::{fn}", "x=2048x128:bfloat16")
            line = e.exception.line()
            self.assertIn("rotated.py:", line)
            self.assertIn("nki.compiler.psum.alloc", line)
            self.assertIn(want, line)

    def test_an_accumulator_stays_carried(self) -> None:
        # `total += t` reads the previous iteration's total: not the loop's
        # own, even though nothing reads it after the loop.
        spec = trace(f"{k('privatized.py')}::accumulator_never_read_after",
                     "x=512x64:float32")
        tt, = find(spec, op="tensor_tensor")
        self.assertEqual(tt["carry"], [tt["id"]])
        self.assertNotIn("one_buffer", tt)

    def test_a_block_a_later_loop_reads_is_kept_whole(self) -> None:
        spec = trace(f"{k('privatized.py')}::read_in_a_later_loop",
                     "x=512x512:float32")
        block, = find(spec, op="loop", id="rows")
        store, = find(spec, op="store")
        self.assertEqual(store["inputs"], ["rows[i]"])
        self.assertNotIn("one_buffer", block)


class PipelinedByHand(unittest.TestCase):
    """A sequential loop whose iteration reads what the iteration before
    (or a prologue) left, and an epilogue that reads what the last one did
    (docs/nki-source.md, "Loops pipelined by hand")."""

    def setUp(self) -> None:
        self.spec = trace(f"{k('pipelined.py')}::pipelined",
                          "x=128x1024:float32")
        self.loop, = find(self.spec, op="loop", var="i")

    def test_reads_before_the_write_carry_the_previous_iteration(self) -> None:
        exp, = [o for o in self.loop["body"] if o["op"] == "activation"]
        buf, peak = (o for o in self.loop["body"]
                     if o["op"] in ("tensor_copy", "tensor_reduce"))
        # The first iteration reads the prologue's buffer 0 and maximum.
        self.assertEqual(exp["inputs"], ["buf", "peak"])
        self.assertEqual(sorted(exp["carry"]), sorted([buf["id"],
                                                       peak["id"]]))
        self.assertEqual(buf["tile_buffers"], 2)

    def test_the_epilogue_reads_the_loops_results(self) -> None:
        self.assertEqual(sorted(self.loop["results"]),
                         ["buf_2", "peak_next"])
        last = [o for o in find(self.spec, op="activation")
                if "carry" not in o]
        self.assertEqual(len(last), 1)
        self.assertEqual(last[0]["inputs"], ["buf_2", "peak_next"])

    def test_the_loop_walks_a_prefix_and_the_epilogue_a_constant_block(
            self) -> None:
        self.assertEqual(self.loop["range"], "sequential")
        iters = {t["name"]: t["shape"] for t in self.spec["tensors"]}
        self.assertEqual(iters[self.loop["tensor"]], [1, 768])
        self.assertEqual(self.loop["step"], 256)
        self.assertEqual([s["index"] for s in find(self.spec, op="store")],
                         [[":", "i"], [":", "768:1024"]])

    def test_a_slot_two_loops_pick(self) -> None:
        spec = trace(f"{k('pipelined.py')}::slot_sum", "x=128x512:float32")
        exp, = find(spec, op="activation")
        self.assertEqual(exp["inputs"], ["blk[a*4+b]"])

    def test_an_older_buffer_after_the_loop_is_refused(self) -> None:
        # Three iterations write buffers 1, 0, 1: buffer 0 after the loop
        # is the second-to-last iteration's, which "results" cannot name.
        rc, err, _, exists = run_frontend(
            f"{k('pipelined.py')}::older_buffer_after", "x=128x1024:float32")
        self.assertEqual(rc, 2, err)
        self.assertFalse(exists)
        self.assertIn("pipelined.py:72: reads buffer 0 of buf, which an "
                      "iteration before the last one of the loop at line 68 "
                      "wrote: not yet supported", err)

    def test_two_iterations_back_is_refused(self) -> None:
        rc, err, _, exists = run_frontend(
            f"{k('pipelined.py')}::two_iterations_back", "x=512x256:float32")
        self.assertEqual(rc, 2, err)
        self.assertFalse(exists)
        self.assertIn("pipelined.py:44: reads a buffer of buf that the loop "
                      "at line 43 wrote more than one iteration before", err)


class States(unittest.TestCase):
    """Tiles updated in place across a sequential loop: the loop's id is
    their state, which has no slots (docs/nki-source.md, "Arrays across
    loops")."""

    def test_slots_updated_in_place_are_a_state_read_whole(self) -> None:
        spec = trace(f"{k('states.py')}::column_sums", "x=512x1024:float32")
        # The Python range loop filling the list is a block.
        block, = find(spec, op="loop", var="c")
        self.assertEqual((block["id"], block["range"]), ("sums", "sequential"))
        state, = find(spec, op="loop", var="k")
        self.assertEqual(state["id"], "sums_k")
        tt, = find(spec, op="tensor_tensor")
        self.assertEqual(tt["inputs"], ["sums[n]", "x_t"])
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["inputs"], ["sums_k"])  # no slot of a state
        # The loops read one another's ids, so one kernel loop holds them.
        self.assertEqual([l["var"] for l in spec["kernel"]["loops"]],
                         ["once"])


    def test_a_whole_tile_rewritten_after_a_read_is_carried(self) -> None:
        spec = trace(f"{k('states.py')}::running_scan",
                     "a=256x1024:float32,b=256x1024:float32")
        scan, = find(spec, op="tensor_tensor_scan")
        copy, = find(spec, op="tensor_copy")
        # `last[...] = res[0:128, 511]` copies one column (it is not the
        # scan writing into `last`), and the next iteration's scan reads it.
        self.assertEqual((copy["id"], copy["inputs"], copy["tile"],
                          copy["slices"]),
                         ("last_next", [scan["id"]], [128, 1], [[128, 1]]))
        self.assertEqual(scan["inputs"][2], "last")  # the zeros, first
        self.assertEqual(scan["carry"], ["last_next"])
        loop, = find(spec, op="loop", var="c")
        self.assertNotIn("id", loop)  # no array is the loop's result


class AllocatedLists(unittest.TestCase):
    """Lists of allocated tiles (the NKI Library's ndarray helper, its
    nested lists of PSUM tiles): no op makes their tiles in the loop that
    appends them, so no block holds them; the Python range loops that
    build them run one iteration at a time, as Python's lists do."""

    def test_a_flat_list_of_allocations(self) -> None:
        spec = trace(f"{k('allocated_lists.py')}::allocated_tiles",
                     "x=512x512:float32")
        self.assertEqual(find(spec, op="loop", var="i"), [])
        loads = find(spec, op="load")
        self.assertEqual([ld["index"][0] for ld in loads],
                         ["0:128", "128:256", "256:384", "384:512"])
        self.assertEqual(len(find(spec, op="store")), 4)

    def test_a_nested_list_of_psum_tiles(self) -> None:
        spec = trace(f"{k('allocated_lists.py')}::allocated_grid",
                     "x=512x128:float32")
        self.assertEqual(len(find(spec, op="transpose")), 4)
        self.assertEqual(len(find(spec, op="store")), 4)


class NoReorder(unittest.TestCase):
    """nki.compiler.no_reorder() and nl.no_reorder(): "no_reorder" on the
    loops whose program order the scheduler keeps (docs/spec-format.md)."""

    def loops(self, function: str) -> dict:
        spec = trace(f"{k('no_reorder.py')}::{function}", "x=512x1024:float32")
        outer, = spec["kernel"]["loops"]
        inner, = find(spec, op="loop")
        return {"i": outer, "j": inner}

    def test_a_directive_marks_its_loop(self) -> None:
        loops = self.loops("directive")
        self.assertIs(loops["i"]["no_reorder"], True)
        # The loops nested in it keep the order by the format's rule.
        self.assertNotIn("no_reorder", loops["j"])

    def test_a_region_marks_its_loops_and_the_body_holding_it(self) -> None:
        loops = self.loops("region")
        self.assertIs(loops["j"]["no_reorder"], True)
        self.assertIs(loops["i"]["no_reorder"], True)

    def test_without_it_nothing_is_marked(self) -> None:
        loops = self.loops("plain")
        self.assertNotIn("no_reorder", loops["i"])
        self.assertNotIn("no_reorder", loops["j"])


class NestedAccumulation(unittest.TestCase):
    """A matmul accumulating into one PSUM tile over two nested loops: the
    outer loop is the accumulator, the inner one has no id
    (docs/spec-format.md, loop nests)."""

    def test_the_outer_loop_is_the_accumulator(self) -> None:
        spec = trace(f"{k('nested_accumulation.py')}::blocked",
                     "a=2048x128:bfloat16,b=2048x512:bfloat16")
        outer, = find(spec, op="loop", var="kb")
        inner, = find(spec, op="loop", var="ki")
        self.assertEqual(outer["id"], "res")
        self.assertNotIn("id", inner)
        self.assertEqual([op["op"] for op in outer["body"]], ["loop"])
        mm, = find(spec, op="matmul")
        self.assertIs(inner["body"][-1], mm)
        self.assertNotIn("overwrite", mm)
        self.assertEqual(mm["buffer"], "psum")
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["inputs"], ["res"])


class NestedFission(unittest.TestCase):
    """Loops nested in a loop that fill two arrays allocated outside it
    (nki_frontend/fission.py)."""

    def test_a_block_and_a_running_max_stay_one_nest(self) -> None:
        # NKIBench's bmm_softmax: the nest's id is the block; the running
        # max is a result that every loop of the nest passes on.
        spec = trace(f"{k('nested_fission.py')}::block_and_running_max",
                     "x=768x512:float32")
        outer, = find(spec, op="loop", var="a")
        self.assertEqual(outer["id"], "blk")
        inner, = outer["body"]
        self.assertNotIn("id", inner)
        acc, = find(spec, op="tensor_tensor")
        self.assertEqual(outer["results"], [acc["id"]])
        self.assertEqual(inner["results"], [acc["id"]])
        # The block's tile is the body's last (what the id stands for);
        # the row max reads it in the same iteration, and the source's
        # order is the dependency order.
        load, red, acc2, exp = inner["body"]
        self.assertEqual((load["op"], red["op"], exp["op"]),
                         ("load", "tensor_reduce", "activation"))
        self.assertIs(acc2, acc)
        self.assertEqual(red["inputs"], [exp["id"]])
        self.assertEqual(acc["inputs"], [red["id"], "mx"])
        self.assertEqual(acc["carry"], [acc["id"]])
        # After the nest: the block by slot, the maximum by its result.
        y, = find(spec, op="activation", engine="scalar")
        self.assertEqual(y["inputs"], ["blk[a2][b2]", acc["id"]])

    def test_two_blocks_split_the_nest(self) -> None:
        spec = trace(f"{k('nested_fission.py')}::two_blocks",
                     "x=768x512:float32")
        first, second = find(spec, op="loop", var="a")
        self.assertEqual(first["id"], "blk")
        self.assertEqual(second["id"], "mxs")
        inner1, = first["body"]
        self.assertEqual([op["op"] for op in inner1["body"]],
                         ["load", "activation"])
        # The row max reads the slot the same iteration of the source
        # wrote, by the second nest's own variables.
        inner2, = second["body"]
        self.assertNotIn("id", inner2)
        red, = inner2["body"]
        self.assertEqual(red["inputs"], ["blk[a][b]"])
        y, = find(spec, op="activation", engine="scalar")
        self.assertEqual(y["inputs"], ["blk[a2][b2]", "mxs[a2][b2]"])

    def test_a_read_of_another_slot_is_refused(self) -> None:
        path = k("nested_fission.py")
        rc, err, _, exists = run_frontend(f"{path}::other_slot_read",
                                          "x=768x512:float32")
        self.assertEqual((rc, exists), (2, False), err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        start = next(i for i, t in enumerate(lines, 1)
                     if "def other_slot_read" in t)
        line = next(i for i, t in enumerate(lines, 1)
                    if i > start and "for a in" in t)
        self.assertTrue(err.startswith(f"{path}:{line}: "), err)
        self.assertIn("reads blk other than by the slot the same iteration "
                      "wrote", err)


class PartialWrites(unittest.TestCase):
    """A tile written in parts in one body and read whole: the reader names
    the last writer, which waits for the version it partly writes over
    (`after`), so the read comes after every part."""

    KERNEL = os.path.join(KERNELS, "partial_writes.py")

    def test_the_second_half_waits_for_the_first(self) -> None:
        spec = trace(f"{self.KERNEL}::halves", "x=128x256:float32")
        mul, add = find(spec, op="tensor_tensor")
        store, = find(spec, op="store")
        self.assertEqual(add.get("after"), [mul["id"]])
        self.assertNotIn("after", mul)
        self.assertEqual(store["inputs"], [add["id"]])

    def test_a_part_over_a_memset_waits_for_it(self) -> None:
        spec = trace(f"{self.KERNEL}::part_over_zeros", "x=128x256:float32")
        memset, = find(spec, op="memset")
        act, = find(spec, op="activation")
        self.assertEqual(act.get("after"), [memset["id"]])

    def test_a_whole_write_needs_no_wait(self) -> None:
        spec = trace(f"{self.KERNEL}::whole_twice", "x=128x256:float32")
        self.assertFalse([op for _, op in ops(spec) if "after" in op])


class Refusals(unittest.TestCase):
    """One line naming FILE:LINE, exit 2, nothing written."""

    def refused(self, function: str, line_text: str, what: str) -> None:
        self.refused_in("refused.py", function, line_text, what)

    def refused_in(self, file: str, function: str, line_text: str,
                   what: str) -> None:
        path = k(file)
        rc, err, _, exists = run_frontend(f"{path}::{function}",
                                          "x=128x64:float32")
        self.assertEqual(rc, 2, err)
        self.assertFalse(exists)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        with open(path, encoding="utf-8") as f:
            line = next(i for i, text in enumerate(f, 1) if line_text in text)
        self.assertTrue(err.startswith(f"{path}:{line}: "), err)
        self.assertIn(what, err)

    def test_unknown_api(self) -> None:
        self.refused("unknown_api", "nl.no_such_function",
                     "no_such_function is not supported")

    def test_data_dependent_control_flow(self) -> None:
        self.refused("data_dependent", "if t:", "control flow on a tile")

    def test_unsupported_dtype(self) -> None:
        # float8_e4m3 and the other nl dtypes trace as the spec dtype of
        # their width (docs/nki-source.md); float64 has none.
        self.refused("bad_dtype", "float64", "supported: bfloat16")

    def test_branch_on_loop_variable(self) -> None:
        self.refused("loop_var_branch", "if i == 0", "cannot be traced")

    def test_direct_allocation(self) -> None:
        # The reference: the function returns (start_partition,
        # byte_addr); this one returns a number.
        self.refused("direct_allocation", "buffer=placed",
                     "nki.compiler.sbuf.alloc: its function returns "
                     "(start_partition, byte_addr), a tuple of 2 integers")

    def test_a_read_of_another_rotated_buffer(self) -> None:
        # The first iteration would read buffer 1, which nothing wrote
        # before the loop (a pipelined loop's prologue writes it).
        self.refused("rotation_read_of_another_buffer", "(i + 1) % 2",
                     "reads buffer (i + 1) % 2 of buf, which the loop at "
                     "line 64 does not write earlier in the iteration, and "
                     "which nothing wrote (at index 1) before that loop")

    def test_a_loop_with_two_results_sharing_a_tile(self) -> None:
        self.refused("two_results_sharing_a_tile", "for r in nl.affine_range",
                     "writes two arrays allocated outside it (rows, maxes): "
                     "the op at line")

    def test_reduce_res_read_in_the_iteration_that_writes_it(self) -> None:
        self.refused_in("reductions.py", "read_in_the_same_iteration",
                        "nl.store(out[:, r]",
                        "reads the reduce_res= tile sums in the loop "
                        "iteration")

    def test_reduce_res_wider_than_one_column(self) -> None:
        self.refused_in("reductions.py", "wide_reduce_res",
                        "reduce_res=wide)",
                        "reduce_res= is a [128, 1] tile")

    def test_syntax_error_in_the_kernel_file(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "broken.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write("import nki\n\ndef f(x:\n    pass\n")
            rc, err, _, exists = run_frontend(f"{path}::f", "x=1x1:int8")
        self.assertEqual((rc, exists), (2, False), err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertTrue(err.startswith(f"{path}:3: syntax error"), err)

    def test_bad_arguments(self) -> None:
        rc, err, _, exists = run_frontend(f"{k('refused.py')}::unknown_api",
                                          "x=128x64:float64")
        self.assertEqual((rc, exists), (2, False))
        self.assertIn("float64 is not supported", err)
        rc, err, _, _ = run_frontend(f"{k('refused.py')}::nope", "x=1x1:int8")
        self.assertEqual(rc, 2)
        self.assertIn("no function nope", err)


class Broadcasts(unittest.TestCase):
    """`x.broadcast_to((P, n))`: "broadcasts" on the op that reads it."""

    def test_partition_broadcast_is_on_each_reader(self) -> None:
        spec = trace(f"{k('broadcasts.py')}::scale_rows",
                     "x=256x512:float32,g=512:float32")
        tt, = find(spec, op="tensor_tensor", engine=None)
        ts = [o for o in find(spec) if o.get("broadcasts")]
        self.assertEqual(len(ts), 2)  # nisa.tensor_tensor and nl.multiply
        for o in ts:
            self.assertEqual(o["broadcasts"], [None, 128])
            self.assertEqual(o["tile"], [128, 512])
            self.assertIn("g_row", o["inputs"])
        self.assertIs(tt.get("engine"), None)
        load, = [o for o in find(spec, op="load") if o["id"] == "g_row"]
        self.assertEqual(load["tile"], [1, 512])

    def test_free_broadcast_needs_no_key(self) -> None:
        spec = trace(f"{k('broadcasts.py')}::free_only", "x=128x64:float32")
        self.assertFalse([o for o in find(spec) if "broadcasts" in o])
        copy, = find(spec, op="tensor_copy")
        self.assertEqual(copy["tile"], [128, 64])

    def test_more_than_128_partitions_is_refused(self) -> None:
        rc, err, _, exists = run_frontend(
            f"{k('broadcasts.py')}::too_many_partitions", "x=1x64:float32")
        self.assertEqual((rc, exists), (2, False))
        self.assertIn("broadcasts.py:", err)
        self.assertIn("at most 128 partitions", err)


class SpmdGrid(unittest.TestCase):
    """`--kernel FILE.py::FUNCTION[4,2]`: the instances of the launch grid
    as affine loops, one per axis, nl.program_id their variables."""

    def test_grid_axes_are_affine_loops(self) -> None:
        spec = trace(f"{k('spmd.py')}::scale_tile[4,2]", "x=512x1024:float32")
        outer, = spec["kernel"]["loops"]
        self.assertEqual((outer["var"], outer["range"], outer["tensor"],
                          outer["tile_partitions"]),
                         ("program_id0", "affine", "x", 128))
        inner, = [o for o in outer["body"] if o["op"] == "loop"]
        self.assertEqual((inner["var"], inner["dim"], inner["step"]),
                         ("program_id1", 1, 512))
        load, = find(spec, op="load")
        self.assertEqual(load["index"], ["program_id0", "program_id1"])
        self.assertEqual(load["tile"], [128, 512])
        self.assertEqual(spec["name"], "scale_tile")
        self.assertEqual(spec["kernel_source"]["function"], "scale_tile[4,2]")

    def test_program_id_without_a_grid_is_refused(self) -> None:
        rc, err, _, exists = run_frontend(f"{k('spmd.py')}::scale_tile",
                                          "x=512x1024:float32")
        self.assertEqual((rc, exists), (2, False))
        self.assertIn("spmd.py:9: ", err)
        self.assertIn("launched without a grid", err)

    def test_bad_grid(self) -> None:
        for bad in ("scale_tile[0,2]", "scale_tile[a]", "scale_tile[4"):
            rc, err, _, _ = run_frontend(f"{k('spmd.py')}::{bad}",
                                         "x=512x1024:float32")
            self.assertEqual(rc, 2, bad)
            self.assertIn("launch grid", err)


if __name__ == "__main__":
    unittest.main()


class ShapeTexts(unittest.TestCase):
    """`--shape NAME,...=DIMS`: the named tensor arguments take the dims as
    their last dims (cli.reshape_args), as trnbench's --shape on a --kernel
    and validate --sources's figures at other shapes give them."""

    def test_last_dims_leading_dims_kept(self) -> None:
        from nki_frontend import cli
        args = cli.parse_args_text(
            "delta=1x4096x8192:float32,A=4096x16:float32,eps=1e-5")
        cli.reshape_args(args, ["delta,out=4096x512", "A=64x16"])
        self.assertEqual(args["delta"], ((1, 4096, 512), "float32"))
        self.assertEqual(args["A"], ((64, 16), "float32"))
        self.assertEqual(args["eps"], 1e-5)  # a scalar is never reshaped

    def test_bad_texts_are_refused(self) -> None:
        from nki_frontend import cli
        from nki_frontend.errors import TraceError
        for text, what in (("out=4x4", "names no tensor argument"),
                           ("eps=4", "names no tensor argument"),
                           ("A=2x2x2", "fewer than 3 dims"),
                           ("A=0x4", "expected NAME"),
                           ("A", "expected NAME")):
            args = cli.parse_args_text("A=4x4:float32,eps=1e-5")
            with self.assertRaises(TraceError, msg=text) as e:
                cli.reshape_args(args, [text])
            self.assertIn(what, str(e.exception), text)


class ScalarArgs(unittest.TestCase):
    """`--args eps=scalar:1e-05`: a scalar as NKIBench's cases.tsv writes
    it, the same number as `eps=1e-05`."""

    def test_scalar_prefix_is_the_number(self) -> None:
        from nki_frontend import cli
        args = cli.parse_args_text(
            "x=128x64:float32,eps=scalar:1e-05,n=scalar:3")
        self.assertEqual(args["eps"], 1e-05)
        self.assertEqual(args["n"], 3)
        self.assertEqual(args["x"], ((128, 64), "float32"))

    def test_scalar_prefix_without_a_number_is_refused(self) -> None:
        from nki_frontend import cli
        from nki_frontend.errors import TraceError
        for text in ("eps=scalar:", "eps=scalar:x", "eps=scalar:True",
                     "eps=scalar:128x64:float32"):
            with self.assertRaises(TraceError, msg=text) as e:
                cli.parse_args_text(text)
            self.assertIn(f"--args {text}: expected a number after scalar:",
                          str(e.exception))
        with self.assertRaises(TraceError) as e:
            cli.parse_args_text("eps=scalar:1e999")
        self.assertIn("expected a finite number", str(e.exception))
