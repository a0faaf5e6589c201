"""NKI dtypes and what the spec format calls them: which a kernel may use,
and the one-line refusal of the others."""

from __future__ import annotations

from typing import Optional

from .location import err


class DType:
    def __init__(self, name: str, spec: Optional[str]) -> None:
        self.name = name
        self.spec = spec  # the spec format's dtype, None: not supported

    def __repr__(self) -> str:
        return f"nl.{self.name}"

    @property
    def dtype(self) -> object:
        """numpy takes an object's `.dtype` as its dtype: NKI's dtypes are
        numpy's, so a kernel file's module level may write
        `np.zeros(4, dtype=nl.float32)` or `np.finfo(nl.float16).max`.
        numpy has no bfloat16, fp8 or tfloat32: those are refused."""
        import numpy
        if self.name in ("float32", "float16", "int8", "int16", "int32",
                         "uint8", "uint16", "uint32", "bool_"):
            return numpy.dtype(self.name.rstrip("_"))
        raise err(f"nl.{self.name} has no numpy dtype (numpy has no "
                  f"{self.name}); numpy takes float32, float16 and the "
                  "integer dtypes")


# The spec format names five dtypes; the model costs a tile by its element
# width (device_model/dtype.h), so a dtype without a spec name of its own is
# traced as the spec dtype of its width (docs/nki-source.md, coverage).
DTYPES = {n: DType(n, s) for n, s in [
    ("bfloat16", "bf16"), ("float16", "fp16"), ("float32", "fp32"),
    ("int8", "int8"), ("int32", "int32"), ("tfloat32", "fp32"),
    ("float8_e4m3", "int8"), ("float8_e5m2", "int8"),
    ("float8_e4m3fn", "int8"), ("float8_e8m0fnu", "int8"),
    ("float8_e5m2_x4", "int32"), ("float8_e4m3fn_x4", "int32"),
    ("float4_e2m1fn_x4", "fp16"), ("uint8", "int8"), ("uint16", "fp16"),
    ("int16", "fp16"), ("uint32", "int32"), ("bool_", "int8")]}

SUPPORTED_DTYPES = ("bfloat16, float16, float32, int8, int32 (and the "
                    "nl dtypes of those widths)")

_NUMPY_NAMES = {"float32": "float32", "float16": "float16",
                "bfloat16": "bfloat16", "int8": "int8", "int32": "int32",
                "uint8": "uint8", "int16": "int16", "uint16": "uint16",
                "uint32": "uint32", "bool": "bool_", "float64": None,
                "int64": None}

# `--args x=128x2x1:float8_e5m2`: the spec names and every nl dtype's name
# (a kernel's test passes float8 arrays; traced as the dtype of its width).
ARG_DTYPES = {"bf16": "bf16", "fp16": "fp16", "fp32": "fp32",
              **{n: d.spec for n, d in DTYPES.items() if d.spec is not None}}


def spec_dtype(d: object) -> str:
    """The spec format's name of an NKI dtype, or a one-line refusal."""
    if isinstance(d, str) and d in ("bf16", "fp16", "fp32", "int8", "int32"):
        return d
    if isinstance(d, str) and d in DTYPES:
        # An nl dtype by its name, as numpy takes "float32" for np.float32
        # (a --kwarg mx_dtype=float8_e5m2_x4 reaches the kernel as a text).
        d = DTYPES[d]
    if isinstance(d, DType):
        if d.spec is None:
            raise err(f"dtype {d!r} is not supported; supported: "
                      f"{SUPPORTED_DTYPES}")
        return d.spec
    name = getattr(d, "__name__", None) or getattr(d, "name", None) or str(d)
    name = str(name)
    if name in _NUMPY_NAMES:
        mapped = _NUMPY_NAMES[name]
        if mapped is not None and DTYPES[mapped].spec is not None:
            return DTYPES[mapped].spec  # type: ignore[return-value]
    raise err(f"dtype {name} is not supported; supported: {SUPPORTED_DTYPES}")


def dtype_obj(spec: str, name: Optional[str] = None) -> DType:
    """The nl dtype `name` where it is one of the spec dtype's width (an
    argument given as float8_e5m2 keeps that name), else the first."""
    if name in DTYPES and DTYPES[name].spec == spec:
        return DTYPES[name]
    for d in DTYPES.values():
        if d.spec == spec:
            return d
    raise err(f"dtype {spec} is not supported")
