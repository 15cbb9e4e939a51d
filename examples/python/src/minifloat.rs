//! The floats narrower than `f32` (float16, bfloat16, the float8 family, `float4_e2m1fn`):
//! their codes to `f64` and back. A Python float (an `f64`) is rounded once, straight to the
//! nearest value of the format, ties to even, as IEEE 754 and ml_dtypes 0.7 convert it; never
//! through `f32` first, which rounds twice (`1.0625 + 2**-40` is 1.125 in `float8_e4m3fn`, not
//! the 1.0 that rounding to `f32` first gives: ml_dtypes 0.6 and PyTorch do that). Past the
//! largest finite value: infinity where the format has one, NaN where it has not
//! (`fn`/`fnuz`), and the largest value for `float4_e2m1fn`, which has neither.
//! `float8_e8m0fnu` (a power of two, no sign, no zero) rounds ties up, and has NaN for zero,
//! negatives and infinities, as ml_dtypes does.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What a format does with its top exponent and its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Specials {
    /// IEEE 754: the top exponent holds infinity (mantissa 0) and NaNs.
    Ieee,
    /// `fn` (finite): no infinity; NaN is the top exponent with every mantissa bit set.
    Finite,
    /// `fnuz` (finite, unsigned zero): no infinity and no negative zero; NaN is the pattern
    /// negative zero would have been.
    FiniteUnsignedZero,
    /// `float4_e2m1fn`: no infinity and no NaN; values past the largest saturate.
    Saturating,
}

/// A small binary float: `1 + exponent + mantissa` bits, in the low bits of a `u16` code.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    exponent: u32,
    mantissa: u32,
    bias: i32,
    specials: Specials,
}

impl Format {
    const fn new(exponent: u32, mantissa: u32, bias: i32, specials: Specials) -> Self {
        Self {
            exponent,
            mantissa,
            bias,
            specials,
        }
    }

    pub const F16: Self = Self::new(5, 10, 15, Specials::Ieee);
    pub const BF16: Self = Self::new(8, 7, 127, Specials::Ieee);
    pub const E3M4: Self = Self::new(3, 4, 3, Specials::Ieee);
    pub const E4M3: Self = Self::new(4, 3, 7, Specials::Ieee);
    pub const E4M3FN: Self = Self::new(4, 3, 7, Specials::Finite);
    pub const E4M3FNUZ: Self = Self::new(4, 3, 8, Specials::FiniteUnsignedZero);
    pub const E4M3B11FNUZ: Self = Self::new(4, 3, 11, Specials::FiniteUnsignedZero);
    pub const E5M2: Self = Self::new(5, 2, 15, Specials::Ieee);
    pub const E5M2FNUZ: Self = Self::new(5, 2, 16, Specials::FiniteUnsignedZero);
    pub const E2M1FN: Self = Self::new(2, 1, 1, Specials::Saturating);

    /// The sign bit.
    fn sign(self) -> u16 {
        1 << (self.exponent + self.mantissa)
    }

    /// The value of `code` (its low `1 + exponent + mantissa` bits).
    pub fn decode(self, code: u16) -> f64 {
        let negative = code & self.sign() != 0;
        let magnitude = code & (self.sign() - 1);
        if self.specials == Specials::FiniteUnsignedZero && negative && magnitude == 0 {
            return f64::NAN;
        }
        let value = self.magnitude(magnitude);
        if negative { -value } else { value }
    }

    /// The value of the positive code `code` (no sign bit).
    fn magnitude(self, code: u16) -> f64 {
        let top = (1 << self.exponent) - 1;
        let exponent = i32::from(code >> self.mantissa);
        let mantissa = code & ((1 << self.mantissa) - 1);
        let fraction = f64::from(mantissa) / f64::from(1_u32 << self.mantissa);
        match self.specials {
            Specials::Ieee if exponent == top && mantissa == 0 => f64::INFINITY,
            Specials::Ieee if exponent == top => f64::NAN,
            Specials::Finite if exponent == top && mantissa == (1 << self.mantissa) - 1 => f64::NAN,
            _ if exponent == 0 => fraction * pow2(1 - self.bias),
            _ => (1.0 + fraction) * pow2(exponent - self.bias),
        }
    }

    /// The largest positive code of a finite value.
    fn largest(self) -> u16 {
        let all = self.sign() - 1;
        match self.specials {
            // The top exponent is not finite: the largest is one exponent lower.
            Specials::Ieee => all - (1 << self.mantissa),
            Specials::Finite => all - 1,
            Specials::FiniteUnsignedZero | Specials::Saturating => all,
        }
    }

    /// The code of NaN (`None` for a format without one).
    fn nan(self) -> Option<u16> {
        match self.specials {
            // The quiet NaN ml_dtypes (and `half`) make: top exponent, top mantissa bit.
            Specials::Ieee => Some(self.sign() - 1 - ((1 << (self.mantissa - 1)) - 1)),
            Specials::Finite => Some(self.sign() - 1),
            Specials::FiniteUnsignedZero => Some(self.sign()),
            Specials::Saturating => None,
        }
    }

    /// The code nearest to `value`, rounded once from `f64` (ties to even); a `ValueError`
    /// for NaN in a format without NaN.
    pub fn encode(self, value: f64) -> PyResult<u16> {
        if value.is_nan() {
            return self
                .nan()
                .ok_or_else(|| PyValueError::new_err("the type has no NaN"));
        }
        let sign = if value.is_sign_negative() {
            self.sign()
        } else {
            0
        };
        let Some(code) = self.nearest(value.abs()) else {
            // Past the largest finite value: infinity, NaN, or the largest again.
            return Ok(match self.specials {
                Specials::Ieee => (self.largest() + 1) | sign,
                // NaN carries no sign in `fnuz` formats.
                Specials::FiniteUnsignedZero => self.sign(),
                Specials::Finite => (self.sign() - 1) | sign,
                Specials::Saturating => self.largest() | sign,
            });
        };
        // `fnuz` formats have no negative zero.
        if code == 0 && self.specials == Specials::FiniteUnsignedZero {
            return Ok(0);
        }
        Ok(code | sign)
    }

    /// The positive code of the value nearest to `magnitude` (non-negative, not NaN), ties to
    /// even; `None` when that value is past the largest finite one (with the exponent range
    /// unbounded above, as IEEE 754 rounds: a tie with the next value up goes to the even one).
    ///
    /// The value's spacing (`2**(e - mantissa)` for `e` its exponent, or the smallest
    /// normal's for a subnormal) is a power of two, so dividing by it, rounding to an integer
    /// and multiplying back are each exact in `f64`: the one rounding is `round_ties_even`.
    fn nearest(self, magnitude: f64) -> Option<u16> {
        if magnitude.is_infinite() {
            return None;
        }
        if magnitude == 0.0 {
            return Some(0);
        }
        let smallest_normal = 1 - self.bias;
        let exponent = exponent_of(magnitude).max(smallest_normal);
        let spacing = exponent - self.mantissa as i32;
        let units = (magnitude * pow2(-spacing)).round_ties_even();
        if units * pow2(spacing) > self.magnitude(self.largest()) {
            return None;
        }
        // `units` is at most `2**(mantissa + 1)`, well inside `u32`.
        let units = units as u32;
        let implicit = 1_u32 << self.mantissa;
        let code = if units < implicit {
            // Subnormal (only at the smallest exponent), or zero.
            units
        } else if units == 2 * implicit {
            // Rounded up into the next binade: its smallest value.
            ((exponent + 1 + self.bias) as u32) << self.mantissa
        } else {
            (((exponent + self.bias) as u32) << self.mantissa) | (units - implicit)
        };
        Some(code as u16)
    }
}

/// `2**e`, exactly, for `e` in `f64`'s normal range.
fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e), "2**{e} is not a normal f64");
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The exponent of a positive finite `f64` (`floor(log2(value))`), read from its bits; below
/// every format's range for an `f64` subnormal.
fn exponent_of(value: f64) -> i32 {
    let biased = ((value.to_bits() >> 52) & 0x7FF) as i32;
    if biased == 0 { -1023 } else { biased - 1023 }
}

/// The value of a `float8_e8m0fnu` byte: `2**(byte - 127)`, NaN at 255.
pub fn e8m0fnu(byte: u8) -> f64 {
    if byte == 0xFF {
        f64::NAN
    } else {
        2f64.powi(i32::from(byte) - 127)
    }
}

/// The `float8_e8m0fnu` byte nearest to `value` (ties up), from `f64` directly: NaN for a
/// value that is not a positive finite number, and for one of `1.5 * 2**127` or more; the
/// smallest, `2**-127`, for every positive value below it (an `f64` subnormal included).
pub fn to_e8m0fnu(value: f64) -> u8 {
    if !(value.is_finite() && value > 0.0) {
        return 0xFF;
    }
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    // An `f64` subnormal is far below `2**-127`, the smallest value, which it rounds up to.
    if biased == 0 {
        return 0;
    }
    // The half-way point between `2**e` and `2**(e + 1)` is `1.5 * 2**e`: the mantissa's top
    // bit says which side `value` is on.
    let exponent = biased - 1023 + i32::from(bits & (1 << 51) != 0);
    match exponent + 127 {
        code if code < 0 => 0,
        code if code > 254 => 0xFF,
        code => code as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finite code decodes and encodes back to itself, in every format.
    #[test]
    fn codes_round_trip() {
        let formats = [
            Format::F16,
            Format::BF16,
            Format::E3M4,
            Format::E4M3,
            Format::E4M3FN,
            Format::E4M3FNUZ,
            Format::E4M3B11FNUZ,
            Format::E5M2,
            Format::E5M2FNUZ,
            Format::E2M1FN,
        ];
        Python::initialize();
        for format in formats {
            for code in 0..=(format.sign() | (format.sign() - 1)) {
                let value = format.decode(code);
                if value.is_nan() {
                    continue;
                }
                let back = format.encode(value).unwrap();
                let expected = if value == 0.0 && format.specials == Specials::FiniteUnsignedZero {
                    0
                } else {
                    code
                };
                assert_eq!(back, expected, "{format:?}: code {code:#x} is {value}");
            }
        }
    }

    /// Every tie between two neighbouring finite values goes to the even code, and a value a
    /// hair past it (the next `f64`) to the nearer one, with one rounding from `f64`.
    #[test]
    fn ties_go_to_even_and_the_rest_to_the_nearest() {
        Python::initialize();
        for format in [
            Format::F16,
            Format::BF16,
            Format::E4M3FN,
            Format::E5M2,
            Format::E2M1FN,
        ] {
            for code in 0..format.largest() {
                let (low, high) = (format.magnitude(code), format.magnitude(code + 1));
                let tie = (low + high) / 2.0;
                let even = if code % 2 == 0 { code } else { code + 1 };
                assert_eq!(
                    format.encode(tie).unwrap(),
                    even,
                    "{format:?}: tie above {code:#x}"
                );
                assert_eq!(
                    format.encode(tie.next_up()).unwrap(),
                    code + 1,
                    "{format:?}: {code:#x}"
                );
                assert_eq!(
                    format.encode(tie.next_down()).unwrap(),
                    code,
                    "{format:?}: {code:#x}"
                );
            }
        }
    }

    /// The double rounding of the issue: through `f32`, `1.0625 + 2**-40` becomes the tie
    /// 1.0625 and rounds to 1.0; from `f64` it is past the tie and rounds to 1.125.
    #[test]
    fn one_rounding_from_f64() {
        Python::initialize();
        let value = 1.0625 + 2f64.powi(-40);
        assert_eq!(
            Format::E4M3FN.decode(Format::E4M3FN.encode(value).unwrap()),
            1.125
        );
        let half_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40); // f16: past the tie above 1.0
        assert_eq!(
            Format::F16.decode(Format::F16.encode(half_tie).unwrap()),
            1.0 + 2f64.powi(-10)
        );
        assert_eq!(to_e8m0fnu(f64::from_bits(1)), 0); // an f64 subnormal: the smallest, 2**-127
    }

    #[test]
    fn known_values() {
        assert_eq!(Format::E4M3FN.decode(0x7E), 448.0);
        assert_eq!(Format::E5M2.decode(0x7B), 57344.0);
        assert_eq!(Format::E2M1FN.decode(0x7), 6.0);
        assert_eq!(Format::E4M3FN.encode(1000.0).unwrap(), 0x7F);
        assert_eq!(Format::E5M2.encode(1e9).unwrap(), 0x7C);
        assert_eq!(Format::E2M1FN.encode(-1e9).unwrap(), 0xF);
        assert_eq!(to_e8m0fnu(0.75), 127);
        assert_eq!(to_e8m0fnu(3.0), 129);
        assert_eq!(to_e8m0fnu(0.0), 0xFF);
        assert_eq!(e8m0fnu(127), 1.0);
    }
}
