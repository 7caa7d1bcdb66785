"""Floating-point error as Herbie measures it: bits of error against exact values, on inputs sampled over the floats.

- :func:`bits_of_error`: ``log2(1 + the number of floats between the computed value and the
  exact value rounded to the dtype)``: 0 for a correctly rounded result, 1 for one ulp off,
  64 (float64; 32 for float32) for a NaN, an infinity where the exact value is finite, or the
  wrong sign at the far end of the range.  Herbie reports its average and maximum over sampled
  inputs (Panchekha et al., "Automatically Improving Accuracy for Floating Point
  Expressions", PLDI 2015).
- :func:`sample_floats`: inputs drawn as Herbie draws them, uniformly over the *bit patterns*
  of the dtype's finite floats, so every binade from the smallest subnormal to the largest
  float is as likely as any other (``x = 1e-300``, ``x = -800``, ``x = 3e12`` all occur);
  Herbie then keeps the points where the exact value is a finite real, as
  :func:`relations.numerics.accuracy.measured_error` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["bits_of_error", "max_bits", "ordinals", "sample_floats"]

_INT = {"float64": np.int64, "float32": np.int32, "float16": np.int16}
_BITS = {"float64": 64, "float32": 32, "float16": 16}


def max_bits(dtype: str) -> int:
    """The largest error :func:`bits_of_error` gives in ``dtype`` (its width in bits)."""
    if str(dtype) not in _BITS:
        raise ValueError(f"dtype: not a float dtype, got {dtype!r}")
    return _BITS[str(dtype)]


def ordinals(values: np.ndarray) -> np.ndarray:
    """The position of each float on the line of all floats of its dtype (``-0.0`` and ``0.0`` both 0).

    Neighbouring floats differ by 1; ``inf`` is one past the largest float.  Returned as Python
    integers in an object array, so differences never overflow."""
    arr = np.asarray(values)
    dtype = str(arr.dtype)
    if dtype not in _INT:
        raise ValueError(f"values: not a float array, got dtype {dtype}")
    raw = arr.view(_INT[dtype]).astype(object)
    sign_bit = 1 << (_BITS[dtype] - 1)
    return np.where(raw < 0, -(raw + sign_bit), raw).astype(object)


def bits_of_error(computed: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Herbie's error of each ``computed`` float against ``exact`` (already rounded to the same dtype).

    ``log2(1 + |ordinal(computed) - ordinal(exact)|)``; a NaN on either side, where the other is
    not NaN, is the dtype's width (the worst error); both NaN is 0."""
    c, e = np.asarray(computed), np.asarray(exact)
    if c.dtype != e.dtype:
        raise ValueError(f"exact: dtype {e.dtype} differs from computed's {c.dtype}; round it first")
    width = max_bits(str(c.dtype))
    c_nan, e_nan = np.isnan(c), np.isnan(e)
    cf, ef = np.where(c_nan, 0, c).astype(c.dtype), np.where(e_nan, 0, e).astype(c.dtype)
    # at least 1-d: numpy gives a 0-d object difference back as a Python int, which has no ``astype`` (an
    # AttributeError on 0-d values of opposite signs far apart, beyond int64, at 10x saturation limits)
    gap = np.abs(np.atleast_1d(ordinals(cf)) - np.atleast_1d(ordinals(ef))).astype(float).reshape(np.shape(c))
    bits = np.minimum(np.log2(1.0 + gap), float(width))
    return np.where(c_nan | e_nan, np.where(c_nan & e_nan, 0.0, float(width)), bits)


def sample_floats(dtype: str, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Finite floats of ``dtype``, uniform over their bit patterns (Herbie's sampling)."""
    kind: Any = _INT.get(str(dtype))
    if kind is None:
        raise ValueError(f"dtype: not a float dtype, got {dtype!r}")
    info = np.iinfo(kind)
    out = np.empty(size, dtype=dtype)
    flat = out.reshape(-1)
    filled = 0
    while filled < flat.size:
        raw = rng.integers(info.min, info.max, size=flat.size - filled, dtype=kind, endpoint=True)
        vals = raw.view(dtype)
        vals = vals[np.isfinite(vals)]
        flat[filled : filled + vals.size] = vals
        filled += vals.size
    return out
