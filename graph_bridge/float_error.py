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


def _magnitudes(values: np.ndarray, unsigned: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each float's distance from zero in floats (an unsigned integer) and whether its sign bit is set."""
    raw: np.ndarray = values.view(unsigned)
    sign_bit = _SIGN[unsigned]
    return (raw & ~sign_bit).astype(np.uint64), raw >= sign_bit


#: :data:`_BITS` by dtype object (``str(dtype)`` cost more than the rest of a call): its unsigned integer of that
#: width, and the width
_UNSIGNED: dict[Any, Any] = {np.dtype(k): np.dtype(f"uint{b}").type for k, b in _BITS.items()}
_WIDTH = {np.dtype(k): float(b) for k, b in _BITS.items()}
_SIGN: dict[Any, Any] = {u: u(1) << u(8 * np.dtype(u).itemsize - 1) for u in _UNSIGNED.values()}


def bits_of_error(computed: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Herbie's error of each ``computed`` float against ``exact`` (already rounded to the same dtype).

    ``log2(1 + |ordinal(computed) - ordinal(exact)|)``; a NaN on either side, where the other is
    not NaN, is the dtype's width (the worst error); both NaN is 0.  The distance between the
    two floats' :func:`ordinals` is computed in unsigned 64-bit integers (a float's distance
    from zero is below ``2**63``, so the sum of two never wraps), not in Python integers."""
    c, e = np.asarray(computed), np.asarray(exact)
    if c.dtype != e.dtype:
        raise ValueError(f"exact: dtype {e.dtype} differs from computed's {c.dtype}; round it first")
    unsigned = _UNSIGNED.get(c.dtype)
    if unsigned is None:
        raise ValueError(f"computed: not a float dtype, got {c.dtype!r}")
    width = _WIDTH[c.dtype]
    c_nan, e_nan = np.isnan(c), np.isnan(e)
    nans = bool(c_nan.any() or e_nan.any())
    if nans:
        c, e = np.where(c_nan, 0, c).astype(c.dtype), np.where(e_nan, 0, e).astype(c.dtype)
    (mc, sc), (me, se) = _magnitudes(c, unsigned), _magnitudes(e, unsigned)
    apart = np.maximum(mc, me) - np.minimum(mc, me)  # one side of zero: the difference of the distances
    gap = np.where(sc == se, apart, mc + me).astype(float)  # either side: their sum (zeros of both signs: 0)
    bits = np.minimum(np.log2(1.0 + gap), width)
    if not nans:
        return bits
    return np.where(c_nan | e_nan, np.where(c_nan & e_nan, 0.0, width), bits)


def sample_floats(dtype: str, size: int | tuple[int, ...], rng: np.random.Generator,
                  within: tuple[float, float] | None = None) -> np.ndarray:
    """Finite floats of ``dtype``, uniform over their bit patterns (Herbie's sampling).

    ``within=(lo, hi)``: the floats from ``lo`` to ``hi`` (both included) only, uniform over their
    :func:`ordinals` (every binade between as likely as any other, as Herbie samples inside a
    precondition's bounds)."""
    kind: Any = _INT.get(str(dtype))
    if kind is None:
        raise ValueError(f"dtype: not a float dtype, got {dtype!r}")
    if within is not None:
        return _sample_between(np.dtype(dtype), kind, within, size, rng)
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


def _sample_between(dtype: np.dtype, kind: Any, within: tuple[float, float], size: int | tuple[int, ...],
                    rng: np.random.Generator) -> np.ndarray:
    info = np.finfo(dtype)
    lo, hi = (float(np.clip(np.asarray(b, dtype=dtype), -info.max, info.max)) for b in within)
    if not lo <= hi:
        raise ValueError(f"within: no float lies from {within[0]} to {within[1]}")
    first, last = (int(ordinals(np.asarray([b], dtype=dtype))[0]) for b in (lo, hi))
    o = rng.integers(first, last, size=size, endpoint=True, dtype=np.int64)
    sign = np.int64(np.iinfo(kind).min)  # the sign bit, in the integer of the dtype's width
    raw = np.where(o >= 0, o, np.bitwise_or(-o, sign)).astype(kind)
    return raw.view(dtype)
