"""Today's (2026-08) `nki.language` and `nki.isa` signatures, as the
reference stubs declare them (generations.py binds calls to them).
Written by tools/nki_coverage.py --write; checked by
tests/nki_frontend/test_nki_coverage.py."""

from typing import Dict

LANGUAGE: Dict[str, str] = {
    'abs': 'x, dtype=None',
    'abs_max': 'x, y, dtype=None',
    'abs_min': 'x, y, dtype=None',
    'add': 'x, y, dtype=None',
    'affine_range': 'start, stop=None, step=None',
    'all': 'x, axis, dtype=None',
    'arctan': 'x, dtype=None',
    'bitwise_and': 'x, y, dtype=None',
    'bitwise_or': 'x, y, dtype=None',
    'bitwise_xor': 'x, y, dtype=None',
    'broadcast_to': 'x, shape, dtype=None',
    'ceil': 'x, dtype=None',
    'copy': 'x, dtype=None',
    'cos': 'x, dtype=None',
    'device_print': 'print_prefix, tensor',
    'divide': 'x, y, dtype=None',
    'dropout': 'x, rate, dtype=None',
    'ds': 'start, size',
    'dynamic_range': 'start, stop=None, step=None',
    'empty_like': 'x, dtype=None, buffer=None, name=None',
    'equal': 'x, y, dtype=None',
    'erf': 'x, dtype=None',
    'erf_dx': 'x, dtype=None',
    'exp': 'x, dtype=None',
    'expand_dims': 'x, axis',
    'floor': 'x, dtype=None',
    'fmod': 'x, y, dtype=None',
    'fori_loop': 'lower, upper, body_fun, step=None',
    'full': 'shape, fill_value, dtype, buffer=None, name=None',
    'gather_flattened': 'data, indices, axis=None, dtype=None',
    'gelu': 'x, dtype=None',
    'gelu_apprx_sigmoid': 'x, dtype=None',
    'gelu_apprx_sigmoid_dx': 'x, dtype=None',
    'gelu_apprx_tanh': 'x, dtype=None',
    'gelu_dx': 'x, dtype=None',
    'greater': 'x, y, dtype=None',
    'greater_equal': 'x, y, dtype=None',
    'invert': 'x, dtype=None',
    'is_hbm': 'buffer',
    'is_on_chip': 'buffer',
    'is_psum': 'buffer',
    'is_sbuf': 'buffer',
    'left_shift': 'x, y, dtype=None',
    'less': 'x, y, dtype=None',
    'less_equal': 'x, y, dtype=None',
    'load': 'src, dtype=None',
    'load_transpose2d': 'src, dtype=None',
    'log': 'x, dtype=None',
    'logical_and': 'x, y, dtype=None',
    'logical_not': 'x, dtype=None',
    'logical_or': 'x, y, dtype=None',
    'logical_xor': 'x, y, dtype=None',
    'matmul': 'x, y, transpose_x=None',
    'max': 'x, axis, dtype=None, keepdims=None',
    'maximum': 'x, y, dtype=None',
    'mean': 'x, axis, dtype=None, keepdims=None',
    'min': 'x, axis, dtype=None, keepdims=None',
    'minimum': 'x, y, dtype=None',
    'mish': 'x, dtype=None',
    'mod': 'x, y, dtype=None',
    'multiply': 'x, y, dtype=None',
    'ndarray': 'shape, dtype, buffer=None, name=None, address=None',
    'negative': 'x, dtype=None',
    'no_reorder': '',
    'not_equal': 'x, y, dtype=None',
    'num_programs': 'axes=None',
    'ones': 'shape, dtype, buffer=None, name=None',
    'power': 'x, y, dtype=None',
    'prod': 'x, axis, dtype=None, keepdims=None',
    'program_id': 'axis=None',
    'program_ndim': '',
    'rand': 'shape, dtype, buffer=None, name=None',
    'random_seed': 'seed',
    'reciprocal': 'x, dtype=None',
    'relu': 'x, dtype=None',
    'right_shift': 'x, y, dtype=None',
    'rms_norm': 'x, w, axis, n, epsilon=None, dtype=None, compute_dtype=None',
    'rsqrt': 'x, dtype=None',
    'sequential_range': 'start, stop=None, step=None',
    'shared_constant': 'constant',
    'shared_identity_matrix': 'n, dtype=None, dst=None',
    'sigmoid': 'x, dtype=None',
    'sign': 'x, dtype=None',
    'silu': 'x, dtype=None',
    'silu_dx': 'x, dtype=None',
    'sin': 'x, dtype=None',
    'softmax': 'x, axis=None, dtype=None',
    'softplus': 'x, dtype=None',
    'sqrt': 'x, dtype=None',
    'square': 'x, dtype=None',
    'static_range': 'start, stop=None, step=None',
    'store': 'dst, value',
    'subtract': 'x, y, dtype=None',
    'sum': 'x, axis, dtype=None, keepdims=None',
    'tan': 'x, dtype=None',
    'tanh': 'x, dtype=None',
    'transpose': 'x, dtype=None',
    'trunc': 'x, dtype=None',
    'var': 'x, axis, dtype=None, keepdims=None',
    'where': 'condition, x, y, dtype=None',
    'while_loop': 'init, body_fun',
    'zeros': 'shape, dtype, buffer=None, name=None',
    'zeros_like': 'x, dtype=None, buffer=None, name=None',
}

ISA: Dict[str, str] = {
    'activate2': (
        'dst, op, data, imm0, imm1, op0, op1, relu_param=None, '
        'reverse0=None, reverse1=None, reduce_op=None, reduce_res=None, '
        'reduce_cmd=None, name=None'),
    'activation': (
        'dst, op, data, bias=None, scale=None, reduce_op=None, '
        'reduce_res=None, reduce_cmd=None, name=None'),
    'activation_reduce': (
        'dst, op, data, reduce_op, reduce_res, bias=None, scale=None, '
        'name=None'),
    'affine_select': (
        'dst, pattern, channel_multiplier, on_true_tile, on_false_value, '
        'cmp_op=None, offset=None, name=None'),
    'bn_aggr': 'dst, data, name=None',
    'bn_stats': 'dst, data, name=None',
    'core_barrier': 'data, cores, engine=None, name=None',
    'dma_compute': (
        'dst, srcs, reduce_op, scales=None, unique_indices=None, '
        'oob_mode=None, name=None'),
    'dma_copy': (
        'dst, src, priority=None, oob_mode=None, dge_mode=None, '
        'engine=None, name=None'),
    'dma_transpose': (
        'dst, src, axes=None, priority=None, dge_mode=None, oob_mode=None, '
        'name=None'),
    'dropout': 'dst, data, prob, name=None',
    'exponential': (
        'dst, src, max_value=None, reduce_res=None, reduce_cmd=None, '
        'reduce_init=None, name=None'),
    'get_nc_sub_version': '',
    'get_nc_version': '',
    'iota': 'dst, pattern, offset=None, channel_multiplier=None, name=None',
    'local_gather': (
        'dst, src_buffer, index, num_elem_per_idx=None, '
        'num_valid_indices=None, name=None'),
    'max8': 'dst, src, name=None',
    'memset': 'dst, value, engine=None, name=None',
    'nc_find_index8': 'dst, data, vals, name=None',
    'nc_match_replace8': 'dst, data, vals, imm, dst_idx=None, name=None',
    'nc_matmul': (
        'dst, stationary, moving, is_stationary_onezero=None, '
        'is_moving_onezero=None, is_transpose=None, accumulate=None, '
        'tile_position=None, tile_size=None, perf_mode=None, name=None'),
    'nc_matmul_mx': (
        'dst, stationary, moving, stationary_scale, moving_scale, '
        'tile_position=None, tile_size=None, accumulate=None, name=None'),
    'nc_n_gather': 'dst, data, indices, name=None',
    'nc_stream_shuffle': 'dst, src, shuffle_mask, name=None',
    'nc_transpose': 'dst, data, engine=None, name=None',
    'nonzero_with_count': (
        'dst, src, index_offset=None, padding_val=None, name=None'),
    'quantize_mx': 'dst, src, dst_scale, name=None',
    'rand2': 'dst, min, max, name=None',
    'rand_get_state': 'dst, engine=None, name=None',
    'rand_set_state': 'src_seeds, engine=None, name=None',
    'range_select': (
        'dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, '
        'reduce_cmd=None, reduce_res=None, reduce_op=None, '
        'range_start=None, on_false_value=None, name=None'),
    'reciprocal': 'dst, data, name=None',
    'register_alloc': 'x=None',
    'register_load': 'dst, src',
    'register_move': 'dst, src',
    'register_store': 'dst, src',
    'rng': 'dst, engine=None, name=None',
    'scalar_tensor_tensor': (
        'dst, data, op0, operand0, op1, operand1, reverse0=None, '
        'reverse1=None, name=None'),
    'select_reduce': (
        'dst, predicate, on_true, on_false, reduce_res=None, '
        'reduce_cmd=None, reduce_op=None, reverse_pred=None, name=None'),
    'sendrecv': (
        'src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=None, '
        'name=None'),
    'sequence_bounds': 'dst, segment_ids, name=None',
    'set_rng_seed': 'src_seeds, name=None',
    'tensor_copy': 'dst, src, engine=None, name=None',
    'tensor_copy_predicated': (
        'dst, src, predicate, reverse_pred=None, name=None'),
    'tensor_partition_reduce': 'dst, op, data, name=None',
    'tensor_reduce': (
        'dst, op, data, axis, negate=None, keepdims=None, name=None'),
    'tensor_scalar': (
        'dst, data, op0, operand0, reverse0=None, op1=None, operand1=None, '
        'reverse1=None, engine=None, name=None'),
    'tensor_scalar_cumulative': (
        'dst, src, op0, op1, imm0, imm1=None, reduce_cmd=None, name=None'),
    'tensor_scalar_reduce': (
        'dst, data, op0, operand0, reduce_op, reduce_res=None, '
        'reverse0=None, reduce_cmd=None, reduce_init=None, '
        'reduce_res_negate=None, name=None'),
    'tensor_tensor': 'dst, data1, data2, op, engine=None, name=None',
    'tensor_tensor_scan': (
        'dst, data0, data1, initial, op0, op1, reverse0=None, '
        'reverse1=None, name=None'),
    'topk': 'val_dst, idx_dst, src, n, name=None',
}
