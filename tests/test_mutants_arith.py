"""affray.core.arith's corners the formula tests leave open (mutation testing, issue 12):
numpy scalars through `tdiv`'s second scalar path, mixed int and array operands, narrow
int arrays, the float path's 2**53 bound, and the tie-breaks of maximum, minimum and
clamp (the value that wins a tie is the one the docstrings name, so a float stays a
float and a -0.0 stays -0.0, the same in both forms).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from affray.core.arith import clamp, maximum, minimum, tdiv


def c_div(numerator: int, denominator: int) -> int:
    """C++ `/`, from the exact quotient."""
    return math.trunc(Fraction(numerator, denominator))


def sign_bits(values: list[float] | np.ndarray) -> list[bool]:
    return np.signbit(np.asarray(values, dtype=np.float64)).tolist()


def test_tdiv_truncates_numpy_scalars_r_prot_9() -> None:
    """R-PROT-9: a numpy integer (what indexing an array gives) truncates toward zero as
    an int does: an inexact negative quotient is raised by exactly one, an exact one or a
    zero quotient is left alone."""
    cases = [(-7, 2), (7, -2), (-7, -2), (-8, 2), (1, 2), (-1, 2), (0, 3), (-9, 4), (9, 4)]
    for numerator, denominator in cases:
        expected = c_div(numerator, denominator)
        assert tdiv(np.int64(numerator), denominator) == expected, (numerator, denominator)
        assert tdiv(numerator, np.int64(denominator)) == expected, (numerator, denominator)
    assert tdiv(np.int64(-7), 2) == -3 and tdiv(np.int64(-8), 2) == -4
    assert tdiv(np.int64(1), 2) == 0


def test_tdiv_of_an_int_by_an_array_r_prot_9() -> None:
    """R-PROT-9: a scalar numerator over an array of denominators, element by element."""
    assert tdiv(-7, np.array([2, 3, 4, 7, 8])).tolist() == [-3, -2, -1, -1, 0]
    assert tdiv(7, np.array([2, 3])).tolist() == [3, 2]


def test_tdiv_of_a_narrow_int_array_gives_int64() -> None:
    """A narrow int array is divided as int64: the result is int64, so a later product
    (a chance x3, a damage x2) does not wrap in the narrow type."""
    small = np.array([200, 7, 0], dtype=np.uint8)
    halved = tdiv(small, 1)
    assert halved.dtype == np.int64
    assert (halved * 2).tolist() == [400, 14, 0]
    signed = tdiv(np.array([-7, 9, 100], dtype=np.int32), 2)
    assert signed.dtype == np.int64 and signed.tolist() == [-3, 4, 50]
    positive = tdiv(np.array([9, 100], dtype=np.int32), 4)
    assert positive.dtype == np.int64 and positive.tolist() == [2, 25]


def test_tdiv_arrays_beyond_2_53_stay_exact_r_prot_9() -> None:
    """R-PROT-9: the float quotient is used only when every numerator is below 2**53 in
    magnitude; one numerator beyond it (with small negatives beside it) keeps the whole
    array on exact integer division."""
    beyond = [2 ** 53 + 1, -(2 ** 53) - 1, -1, 3]
    for denominator in (1, 3):
        assert tdiv(np.array(beyond), denominator).tolist() == [
            c_div(n, denominator) for n in beyond]
    mixed = [-3, 2 ** 62 - 5]
    assert tdiv(np.array(mixed), 7).tolist() == [c_div(n, 7) for n in mixed]
    mixed = [3, -(2 ** 62) + 7]
    assert tdiv(np.array(mixed), 7).tolist() == [c_div(n, 7) for n in mixed]


def test_maximum_and_minimum_break_ties_as_the_builtins() -> None:
    """maximum(a, b) is max(b, a), minimum(a, b) is min(b, a): on a tie the second
    argument wins, so 0.0 against -0.0 and 2 against 2.0 come out as the builtins give
    them, and the array form picks the same element (sign of zero included)."""
    for a, b in [(0.0, -0.0), (-0.0, 0.0), (2, 2.0), (2.0, 2)]:
        for ours, builtin in ((maximum(a, b), max(b, a)), (minimum(a, b), min(b, a))):
            assert type(ours) is type(builtin), (a, b)
            assert math.copysign(1.0, ours) == math.copysign(1.0, builtin), (a, b)
    a = np.array([0.0, -0.0, 1.5])
    b = np.array([-0.0, 0.0, 1.5])
    assert sign_bits(maximum(a, b)) == [True, False, False]
    assert sign_bits(minimum(a, b)) == [True, False, False]


def test_maximum_and_minimum_of_an_array_and_a_number() -> None:
    """One operand an array, the other a number (either side): element by element."""
    values = np.array([-3, 0, 5, 9])
    assert maximum(values, 4).tolist() == [4, 4, 5, 9]
    assert maximum(4, values).tolist() == [4, 4, 5, 9]
    assert minimum(values, 4).tolist() == [-3, 0, 4, 4]
    assert minimum(4, values).tolist() == [-3, 0, 4, 4]


def test_clamp_keeps_a_value_equal_to_a_bound() -> None:
    """clamp replaces only a value strictly outside [low, high] (the source's URANGE):
    a value equal to a bound is the value itself, -0.0 against a bound of 0.0 stays
    -0.0 and a float against an int bound stays a float, the same in both forms."""
    assert math.copysign(1.0, clamp(-0.0, 0.0, 1.0)) == -1.0
    assert math.copysign(1.0, clamp(-0.0, -1.0, 0.0)) == -1.0
    assert type(clamp(5.0, 5, 10)) is float and type(clamp(10.0, 5, 10)) is float
    assert sign_bits(clamp(np.array([-0.0, 0.0, 0.5]), 0.0, 1.0)) == [True, False, False]
    assert sign_bits(clamp(np.array([-0.0, 3.0]), -1.0, 0.0)) == [True, False]
    assert clamp(np.array([4.0, 5.0, 10.0, 11.0]), 5, 10).tolist() == [5.0, 5.0, 10.0, 10.0]
