"""torch dtypes and the spec's."""

from __future__ import annotations

from typing import Dict

from .errors import TraceError

# --args dtype names -> torch dtype attribute names.
ARG_DTYPES: Dict[str, str] = {
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float16": "float16", "fp16": "float16", "half": "float16",
    "float32": "float32", "fp32": "float32", "float": "float32",
    "int8": "int8", "int32": "int32", "int64": "int64", "long": "int64",
}

# torch dtype (its str without "torch.") -> spec dtype. The device has no
# 64-bit types: torch-neuronx runs int64 indices and float64 scalars as
# int32 and fp32, so the spec counts their bytes as such.
_SPEC: Dict[str, str] = {
    "bfloat16": "bf16", "float16": "fp16", "float32": "fp32",
    "float64": "fp32", "int8": "int8", "uint8": "int8", "bool": "int8",
    "int16": "int32", "int32": "int32", "int64": "int32",
}

# torch.jit scalar type names -> torch dtype names.
_JIT: Dict[str, str] = {
    "BFloat16": "bfloat16", "Half": "float16", "Float": "float32",
    "Double": "float64", "Char": "int8", "Byte": "uint8", "Bool": "bool",
    "Short": "int16", "Int": "int32", "Long": "int64",
}


def spec_dtype(torch_dtype: object) -> str:
    name = str(torch_dtype).replace("torch.", "")
    if name not in _SPEC:
        raise TraceError(f"dtype {name} has no device counterpart; "
                         f"supported: {', '.join(sorted(_SPEC))}")
    return _SPEC[name]


def jit_dtype(scalar_type: str) -> str:
    return spec_dtype(_JIT.get(scalar_type, scalar_type))


def supported_arg_dtypes() -> str:
    return ", ".join(sorted(ARG_DTYPES))
