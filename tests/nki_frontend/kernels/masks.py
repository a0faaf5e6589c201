"""Masks as predicates: on the partition index, on a free index, combined
with &, on loads, stores and compute ops (written for the project's tests)."""
import math

import neuronxcc.nki.language as nl


def masked_columns(in_tensor):
  """Adds 1 to a [128, n] tensor in column tiles of 512, the last partial."""
  out_tensor = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype,
                          buffer=nl.shared_hbm)
  sz_p, sz_f = in_tensor.shape
  i_p = nl.arange(sz_p)[:, None]
  for j in nl.affine_range(math.ceil(sz_f / 512)):
    i_f = j * 512 + nl.arange(512)[None, :]
    x = nl.load(in_tensor[i_p, i_f], mask=(i_f < sz_f))
    y = nl.add(x, x, mask=(i_f < sz_f) & (i_p < sz_p))
    nl.store(out_tensor[i_p, i_f], value=y, mask=(i_f < sz_f))
  return out_tensor


def masked_ops(in_tensor):
  """mask= on nl ops that compute no elementwise ALU result (reciprocal,
  transpose, matmul) and on nisa instructions: each is a predicate."""
  import neuronxcc.nki.isa as nisa
  out_tensor = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
  i_p = nl.arange(128)[:, None]
  i_f = nl.arange(128)[None, :]
  m = (i_p < 100)
  x = nl.load(in_tensor[i_p, i_f])
  r = nl.reciprocal(x, mask=m)
  t = nl.transpose(r, mask=m)
  p = nl.matmul(t, x, transpose_x=True, mask=m)
  s = nisa.tensor_scalar(p, nl.multiply, 2.0, mask=m)
  a = nisa.activation(op=nl.exp, data=s, mask=m)
  nl.store(out_tensor[i_p, i_f], value=a)
  return out_tensor
