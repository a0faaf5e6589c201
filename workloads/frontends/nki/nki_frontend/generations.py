"""The NKI API generations, each a thin layer of signatures over one set of
tracing functions (language.py, isa.py: one IR, as torch.fx keeps one graph
under several front ends).

- `neuronxcc.nki` (SDK 2.21-2.26): the tracing functions as they are; they
  take SDK 2.x's argument order (`nisa.tensor_copy(src, dst=...)`).
- `nki` (today's, 2026-08): every `nisa` function takes `dst` first and
  every argument by position or by name, `nl.load(src, dtype)`, ... The
  signatures in signatures_2026.py are the reference stubs' own
  (tools/nki_coverage.py writes that file from the stubs and checks it);
  a function whose signature the tracing function already has is provided
  as is, any other is wrapped: the call is bound to the reference's
  signature, then passed on by name.

`tests/nki_frontend/test_nki_coverage.py` checks, per generation, each
provided function's parameters against the reference stub's."""

from __future__ import annotations

import inspect
from typing import Callable, Dict, List, Optional, Tuple

from . import core, isa, language
from .signatures_2026 import LANGUAGE as LANGUAGE_2026
from .signatures_2026 import ISA as ISA_2026

# Names of the tracing modules that are not API (imports, helpers).
_LANGUAGE_PRIVATE = {
    "annotations", "core", "ir", "tracer", "Optional", "Sequence", "Tuple",
    "DTYPES", "HBM", "PRIVATE_HBM", "PSUM", "SBUF", "SHARED_HBM", "DType",
    "DynSlice", "Grid", "HbmHandle", "HbmView", "ParDim", "Tile", "TileView",
    "err", "is_tile", "make_op", "result_tile", "tile_dtype", "tile_shape",
    "Affine", "Axis", "Conjunction", "Predicate", "python_range", "builtins",
    "not_yet", "Broadcast", "clip_to_mask", "traced_as", "refused", "tile_size_2026"}
_ISA_PRIVATE = {
    "annotations", "core", "ir", "language", "Optional", "Sequence",
    "HbmHandle", "HbmView", "Tile", "TileView", "err", "is_tile", "make_op",
    "result_tile", "tile_dtype", "tile_shape", "not_yet", "traced_as",
    "refused"}

# A parameter today's reference renamed: (module, function) -> {today's name:
# the tracing function's}.
_RENAMES: Dict[Tuple[str, str], Dict[str, str]] = {
    ("language", "zeros_like"): {"x": "a"},
    ("language", "empty_like"): {"x": "a"},
    ("language", "broadcast_to"): {"x": "src", "dtype": None},
    ("language", "copy"): {"x": "src"},
    ("language", "expand_dims"): {"x": "data"},
    ("language", "device_print"): {"print_prefix": None, "tensor": None},
    ("language", "shared_constant"): {},
}

_UNSET = object()


def _public(mod: object, private: set) -> Dict[str, object]:
    return {n: getattr(mod, n) for n in dir(mod)
            if not n.startswith("_") and n not in private}


def parse_params(text: str) -> List[Tuple[str, bool]]:
    """`"dst, src, engine=None"` as [(name, has default)]."""
    out = []
    for p in filter(None, (x.strip() for x in text.split(","))):
        name, eq, _ = p.partition("=")
        out.append((name.strip(), bool(eq)))
    return out


def accepts(func: Callable, params: List[Tuple[str, bool]],
            keyword_only: Tuple[str, ...] = ()) -> Optional[str]:
    """None when `func` takes the reference's parameters `params` (in its
    order, by position or by name) and `keyword_only`; else what differs."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None  # a class or a builtin: nothing to compare
    ps = list(sig.parameters.values())
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY,
                                              p.POSITIONAL_OR_KEYWORD)]
    var_pos = any(p.kind == p.VAR_POSITIONAL for p in ps)
    var_kw = any(p.kind == p.VAR_KEYWORD for p in ps)
    named = {p.name for p in ps if p.kind not in (p.VAR_POSITIONAL,
                                                  p.VAR_KEYWORD)}
    for i, (name, _) in enumerate(params):
        if i < len(positional):
            if positional[i].name != name:
                return (f"parameter {i + 1} is {positional[i].name!r}, the "
                        f"reference's is {name!r}")
        elif not var_pos and name not in named:
            return f"parameter {i + 1}, {name!r}, is not taken by position"
    for name in keyword_only:
        if name not in named and not var_kw:
            return f"keyword {name!r} is not taken"
    return None


def _destination(x: object) -> bool:
    """Whether `x` can be an instruction's dst= (a tile, a view, HBM)."""
    x = core._unlist(x)
    return isinstance(x, (core.Tile, core.TileView, core.HbmHandle,
                          core.HbmView))


def _wrap(module: str, name: str, impl: Callable, text: str) -> Callable:
    params = parse_params(text)
    sig = inspect.Signature([
        inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=_UNSET if d else inspect.Parameter.empty)
        for n, d in params])
    renames = _RENAMES.get((module, name), {})
    drop_name = module == "isa"  # an instruction's name= labels it only

    def f(*args: object, **kwargs: object) -> object:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            bound = None
        if bound is None or (
                "dst" in bound.arguments and
                not _destination(bound.arguments["dst"])):
            # The earlier `nki` releases' value-returning form (the
            # 2026-02 tutorials' `t = nisa.nc_transpose(x)`), which is
            # SDK 2.x's: the tracing function's own signature.
            try:
                inspect.signature(impl).bind(*args, **kwargs)
            except TypeError:
                shown = inspect.Signature([
                    p.replace(default=None) if p.default is _UNSET else p
                    for p in sig.parameters.values()])
                raise core.err(f"nki.{module}.{name}{shown}: the call "
                               "matches neither this signature nor the "
                               "earlier value-returning one") from None
            return impl(*args, **kwargs)
        kw = {}
        for k, v in bound.arguments.items():
            if v is _UNSET or (drop_name and k == "name"):
                continue
            k2 = renames.get(k, k)
            if k2 is not None:
                kw[k2] = v
        return impl(**kw)
    f.__name__ = f.__qualname__ = name
    f.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        p.replace(default=None) if p.default is _UNSET else p
        for p in sig.parameters.values()])
    f.__doc__ = impl.__doc__
    for attr in ("_traced_as", "_refused"):
        if hasattr(impl, attr):
            setattr(f, attr, getattr(impl, attr))
    f._wraps = impl  # type: ignore[attr-defined]
    return f


def _today(module: str, names: Dict[str, object],
           sigs: Dict[str, str]) -> Dict[str, object]:
    out = dict(names)
    for name, text in sigs.items():
        impl = names.get(name)
        if impl is None or not callable(impl) or isinstance(impl, type) or \
                hasattr(impl, "_refused"):
            continue
        if accepts(impl, parse_params(text)) is None:
            continue
        out[name] = _wrap(module, name, impl, text)
    return out


def language_names(top: str) -> Dict[str, object]:
    names = _public(language, _LANGUAGE_PRIVATE)
    if top == "nki":
        names["tile_size"] = language.tile_size_2026
        names.update(language._ranges_2026())
        names["shared_identity_matrix"] = \
            language._shared_identity_matrix_2026
        names["program_id"] = language._program_id_2026
        return _today("language", names, LANGUAGE_2026)
    return names


def isa_names(top: str) -> Dict[str, object]:
    names = _public(isa, _ISA_PRIVATE)
    if top == "nki":
        return _today("isa", names, ISA_2026)
    return names


_COLLECTIVES = ("all_reduce", "all_gather", "all_gather_v", "reduce_scatter",
                "all_to_all", "all_to_all_v", "collective_permute",
                "collective_permute_implicit",
                "collective_permute_implicit_reduce",
                "collective_permute_implicit_current_processing_rank_id",
                "rank_id")


def collectives_names(top: str) -> Dict[str, object]:
    """`nki.collectives`: every operation refuses in one line (they reach
    beyond the one NeuronCore trnbench models)."""
    out: Dict[str, object] = {
        n: language.refused(f"nki.collectives.{n}",
                            "collectives reach beyond one NeuronCore; "
                            "trnbench models one")
        for n in _COLLECTIVES}

    class ReplicaGroup:
        """A group of ranks: a plain object until a collective uses it."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            self.args = args
    out["ReplicaGroup"] = ReplicaGroup
    return out
