"""The upstream NKI tutorial kernels (../shared/fixtures/nki-samples) the
front end is held to, at the tutorials' shapes, with the hand-written
validation spec of the same kernel where the suite has one. Run as a
script, it traces and runs each one and prints the table of
docs/nki-source.md ("Upstream kernels")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import List, NamedTuple, Optional, Tuple

from frontend_test_util import SAMPLES, SOURCE, WORKLOADS

MM = "lhsT=8192x4096:bfloat16,rhs=8192x8192:bfloat16"
MAMBA = ("delta=1x4096x512:float32,u=1x4096x512:float32,A=4096x16:float32,"
         "B=1x16x512:float32,C=1x16x512:float32")
MAMBA_8192 = MAMBA.replace("x512:", "x8192:")
V3_AT_512 = ("--shape", "delta,u,out=4096x512", "--shape", "B,C=16x512")
LN = ("input_tensor=4096x8192:float32,epsilon=1e-05,gamma_vector=8192:float32,"
      "beta_vector=8192:float32")


class Kernel(NamedTuple):
    generation: str  # sdk-2.21 or 2026-02
    file: str        # relative to the generation's folder
    function: str
    args: str
    kwargs: Tuple[str, ...] = ()
    hand_spec: Optional[str] = None  # workloads/validation/<name>.json
    # --shape flags that run the hand-written spec at the kernel's shape
    # (nki_mamba_v3's own is seq_len 8192, the tutorial's test is 512).
    hand_shape: Tuple[str, ...] = ()


def kernels() -> List[Kernel]:
    out: List[Kernel] = []
    mm = "matrix_multiplication/matrix_multiplication_nki_kernels.py"
    mamba = "fused_mamba/mamba_nki_kernels.py"
    # Both generations of a tutorial kernel are held to the one hand-written
    # spec of it: the 2026-02 versions state the same algorithm in the new
    # API.
    for gen in ("sdk-2.21", "2026-02"):
        out += [
            Kernel(gen, mm, "nki_matmul_basic_",
                   "lhsT=128x64:bfloat16,rhs=128x512:bfloat16"),
            Kernel(gen, mm, "nki_matmul_tiled_", MM,
                   hand_spec="nki_matmul_tiled"),
            Kernel(gen, mm, "nki_matmul_hoist_load_", MM,
                   hand_spec="nki_matmul_hoist_load"),
            Kernel(gen, mm, "nki_matmul_block_free_dimension_", MM,
                   hand_spec="nki_matmul_block_free"),
            Kernel(gen, mm, "nki_matmul_fully_optimized_", MM,
                   hand_spec="nki_matmul_fully_optimized"),
        ]
        for v in ("1", "2", "3"):
            out.append(Kernel(gen, mamba, f"mamba_v{v}", MAMBA,
                              hand_spec=f"nki_mamba_v{v}",
                              hand_shape=V3_AT_512 if v == "3" else ()))
        # v3 at its own shape, seq_len 8192 (the published 27.8 ms).
        out.append(Kernel(gen, mamba, "mamba_v3", MAMBA_8192,
                          hand_spec="nki_mamba_v3"))
        out += [
            Kernel(gen, "transpose2d/transpose2d_nki_kernels.py",
                   "tensor_transpose2D_kernel_", "in_tensor=4x12:int8",
                   ("shape2D=(3,4)",)),
            Kernel(gen, "average_pool2d/average_pool2d_nki_kernels.py",
                   "tensor_avgpool_kernel", "in_tensor=2x10x10:float16,"
                   "pool_size=2"),
            Kernel(gen, "tensor_addition/tensor_addition_nki_kernels.py",
                   "nki_tensor_add_kernel_[2,2]",
                   "a_input=256x1024:float16,b_input=256x1024:float16"),
        ]
    out += [
        Kernel("sdk-2.21", "layernorm/layernorm_nki_kernel.py",
               "nki_layernorm_kernel_v1", LN, hand_spec="nki_layernorm_v1"),
        Kernel("sdk-2.21", "layernorm/layernorm_nki_kernel.py",
               "nki_layernorm_kernel_v2", LN, hand_spec="nki_layernorm_v2"),
        Kernel("sdk-2.21", "rmsnorm/rmsnorm_nki_kernels.py",
               "nki_rmsnorm_kernel", "a_tensor=4096x512:float32,"
               "g_tensor=512:float32"),
        Kernel("sdk-2.21", "sd_attention/sd_attention_nki_kernels.py",
               "fused_self_attn_for_SD_small_head_size",
               "q_ref=4096x64:bfloat16,k_ref=4096x64:bfloat16,"
               "v_ref=4096x64:bfloat16"),
        # v1 and v2 assert seqlen 128 (the tutorial's toy size).
        Kernel("2026-02", "attention_fwd_performance/attention_kernels.py",
               "attn_fwd_v1", "q=128x128:bfloat16,k=128x128:bfloat16,"
               "v=128x128:bfloat16"),
        Kernel("2026-02", "attention_fwd_performance/attention_kernels.py",
               "attn_fwd_v2", "q=128x128:bfloat16,k=128x128:bfloat16,"
               "v=128x128:bfloat16"),
    ]
    # v3-v11 tile a long sequence (d_head 128, seqlen 4096; v3 at 512, its
    # smallest: it keeps all of Q @ K^T in PSUM, 256 banks at 4096, which
    # trnbench refuses). v10 is left out: its source says nki.benchmark and
    # nki.profile fail on it.
    out.append(Kernel("2026-02",
                      "attention_fwd_performance/attention_kernels.py",
                      "attn_fwd_v3", "q=128x512:bfloat16,k=128x512:bfloat16,"
                      "v=128x512:bfloat16"))
    out += [
        Kernel("2026-02", "attention_fwd_performance/attention_kernels.py",
               f"attn_fwd_v{v}", "q=128x4096:bfloat16,k=128x4096:bfloat16,"
               "v=128x4096:bfloat16")
        for v in ("4", "5", "6", "7", "8", "8a", "9", "11")
    ]
    return out


def path_of(k: Kernel) -> str:
    return os.path.join(SAMPLES, k.generation, k.file)


def trace_timed(k: Kernel) -> Tuple[Optional[dict], str, float]:
    """(spec or None, refusal line, seconds from the call to the spec)."""
    sys.path.insert(0, WORKLOADS)
    from nki_frontend import cli, emit
    from nki_frontend.errors import TraceError
    start = time.perf_counter()
    try:
        args = cli.parse_args_text(k.args)
        kw = {}
        for item in k.kwargs:
            name, value, _ = cli.parse_kwarg(item)
            kw[name] = value
        t = cli.trace_kernel(path_of(k), k.function, args, kw)
        spec = emit.emit(t, cli.workload_name(cli.split_grid(k.function)[0]),
                         "upstream",
                         cli.provenance_of(path_of(k), k.function, args,
                                           dict(item.split("=", 1)
                                                for item in k.kwargs)))
    except TraceError as e:
        return None, e.line(), time.perf_counter() - start
    return spec, "", time.perf_counter() - start


def run_spec(trnbench: str, spec: dict, repeat: int = 10,
             extra: Tuple[str, ...] = ()) -> Tuple[dict, float]:
    """The results of one run of `spec` and its wall time in seconds."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spec.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        start = time.perf_counter()
        p = subprocess.run([trnbench, "--spec", path, "--repeat", str(repeat),
                            "--format", "json", *extra], capture_output=True,
                           text=True, timeout=600)
        took = time.perf_counter() - start
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip())
        return json.loads(p.stdout)["workloads"][0]["metrics"], took


def hand_spec(name: str) -> dict:
    with open(os.path.join(SOURCE, "workloads", "validation", name + ".json"),
              encoding="utf-8") as f:
        spec = json.load(f)
    spec.pop("published", None)
    return spec


def fmt_us(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} us"


def published_ncl(name: str) -> str:
    with open(os.path.join(SOURCE, "workloads", "validation", name + ".json"),
              encoding="utf-8") as f:
        for fig in json.load(f).get("published", []):
            if fig["metric"] == "ncl_us" and fig.get("device") == "trn1" \
                    and "shape" not in fig:
                return f"{fig['figure']} {fig['unit']} ({fig['statistic']})"
    return ""


def label(k: Kernel) -> str:
    """The kernel's function, with the shape where one function is listed
    at two."""
    if k.args == MAMBA_8192:
        return k.function + " (seq_len 8192)"
    return k.function


def main() -> int:
    trnbench = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        SOURCE, "build", "trnbench")
    print("| generation | kernel | traced | trace ms | run s | NCL p99 traced | NCL p99 hand-written spec | difference | published |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in kernels():
        spec, why, took = trace_timed(k)
        if spec is None:
            print(f"| {k.generation} | {label(k)} | no: {why.split(': ', 1)[-1]} | {took*1000:.0f} | | | | | |")
            continue
        try:
            m, run_s = run_spec(trnbench, spec)
            fig = fmt_us(m['ncl_us']['p99'])
        except RuntimeError as e:
            fig, run_s = f"refused: {e}", 0.0
        hand = pub = diff = ""
        if k.hand_spec:
            hm, _ = run_spec(trnbench, hand_spec(k.hand_spec),
                             extra=k.hand_shape)
            hand = fmt_us(hm['ncl_us']['p99'])
            pub = "" if k.hand_shape else published_ncl(k.hand_spec)
            if not fig.startswith("refused"):
                diff = f"{(m['ncl_us']['p99'] / hm['ncl_us']['p99'] - 1) * 100:+.1f}%"
        if fig.startswith("refused"):
            fig = "refused by trnbench: " + fig.split(": ")[-1][:90]
        print(f"| {k.generation} | {label(k)} | yes | {took*1000:.0f} | {run_s:.2f} | {fig} | {hand} | {diff} | {pub} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
