//! The 8- and 4-bit floats (the float8 family and `float4_e2m1fn`): their bytes to `f64` and
//! back, as ml_dtypes (the reference JAX uses) and PyTorch convert them: the value is rounded
//! to `f32` first (so a value just past a tie can round as the tie does), then to nearest,
//! ties to even;
//! past the largest finite value, infinity where the format has one, NaN where it has not
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

/// A small binary float: `1 + exponent + mantissa` bits, in the low bits of a byte.
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

    pub const E3M4: Self = Self::new(3, 4, 3, Specials::Ieee);
    pub const E4M3: Self = Self::new(4, 3, 7, Specials::Ieee);
    pub const E4M3FN: Self = Self::new(4, 3, 7, Specials::Finite);
    pub const E4M3FNUZ: Self = Self::new(4, 3, 8, Specials::FiniteUnsignedZero);
    pub const E4M3B11FNUZ: Self = Self::new(4, 3, 11, Specials::FiniteUnsignedZero);
    pub const E5M2: Self = Self::new(5, 2, 15, Specials::Ieee);
    pub const E5M2FNUZ: Self = Self::new(5, 2, 16, Specials::FiniteUnsignedZero);
    pub const E2M1FN: Self = Self::new(2, 1, 1, Specials::Saturating);

    /// The sign bit.
    fn sign(self) -> u8 {
        1 << (self.exponent + self.mantissa)
    }

    /// The value of `code` (its low `1 + exponent + mantissa` bits).
    pub fn decode(self, code: u8) -> f64 {
        let negative = code & self.sign() != 0;
        let magnitude = code & (self.sign() - 1);
        if self.specials == Specials::FiniteUnsignedZero && negative && magnitude == 0 {
            return f64::NAN;
        }
        let value = self.magnitude(magnitude);
        if negative { -value } else { value }
    }

    /// The value of the positive code `code` (no sign bit).
    fn magnitude(self, code: u8) -> f64 {
        let top = (1 << self.exponent) - 1;
        let exponent = i32::from(code >> self.mantissa);
        let mantissa = code & ((1 << self.mantissa) - 1);
        let fraction = f64::from(mantissa) / f64::from(1 << self.mantissa);
        match self.specials {
            Specials::Ieee if exponent == top && mantissa == 0 => f64::INFINITY,
            Specials::Ieee if exponent == top => f64::NAN,
            Specials::Finite if exponent == top && mantissa == (1 << self.mantissa) - 1 => f64::NAN,
            _ if exponent == 0 => fraction * 2f64.powi(1 - self.bias),
            _ => (1.0 + fraction) * 2f64.powi(exponent - self.bias),
        }
    }

    /// The largest positive code of a finite value.
    fn largest(self) -> u8 {
        let all = self.sign() - 1;
        match self.specials {
            // The top exponent is not finite: the largest is one exponent lower.
            Specials::Ieee => all - (1 << self.mantissa),
            Specials::Finite => all - 1,
            Specials::FiniteUnsignedZero | Specials::Saturating => all,
        }
    }

    /// The code of NaN (`None` for a format without one).
    fn nan(self) -> Option<u8> {
        match self.specials {
            // The quiet NaN ml_dtypes makes: top exponent, top mantissa bit.
            Specials::Ieee => Some(self.sign() - 1 - ((1 << (self.mantissa - 1)) - 1)),
            Specials::Finite => Some(self.sign() - 1),
            Specials::FiniteUnsignedZero => Some(self.sign()),
            Specials::Saturating => None,
        }
    }

    /// The code nearest to `value`; a `ValueError` for NaN in a format without NaN.
    pub fn encode(self, value: f64) -> PyResult<u8> {
        let value = f64::from(value as f32);
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
        let largest = self.largest();
        let magnitude = value.abs();
        let top = self.magnitude(largest);
        // What lies past the largest finite value: infinity, NaN, or the largest again.
        let overflow = match self.specials {
            Specials::Ieee => largest + 1,
            Specials::Finite | Specials::FiniteUnsignedZero => self.nan().unwrap_or(largest),
            Specials::Saturating => largest,
        };
        // The next value past the largest, were the exponent range wider: ties between the two
        // go to the even code, as IEEE 754 rounds towards infinity.
        let step = top - self.magnitude(largest - 1);
        let code = if magnitude >= top + step / 2.0 {
            if magnitude == top + step / 2.0 && largest % 2 == 0 {
                largest
            } else {
                return Ok(match (self.specials, overflow) {
                    // NaN carries no sign in `fnuz` formats.
                    (Specials::FiniteUnsignedZero, code) => code,
                    (_, code) => code | sign,
                });
            }
        } else {
            // The positive codes of finite values are in increasing order of value.
            let above = (0..=largest)
                .find(|&code| self.magnitude(code) >= magnitude)
                .unwrap_or(largest);
            if above == 0 || self.magnitude(above) == magnitude {
                above
            } else {
                let below = above - 1;
                let (low, high) = (self.magnitude(below), self.magnitude(above));
                match (magnitude - low).partial_cmp(&(high - magnitude)) {
                    Some(core::cmp::Ordering::Less) => below,
                    Some(core::cmp::Ordering::Greater) => above,
                    _ if below % 2 == 0 => below,
                    _ => above,
                }
            }
        };
        // `fnuz` formats have no negative zero.
        if code == 0 && self.specials == Specials::FiniteUnsignedZero {
            return Ok(0);
        }
        Ok(code | sign)
    }
}

/// The value of a `float8_e8m0fnu` byte: `2**(byte - 127)`, NaN at 255.
pub fn e8m0fnu(byte: u8) -> f64 {
    if byte == 0xFF {
        f64::NAN
    } else {
        2f64.powi(i32::from(byte) - 127)
    }
}

/// The `float8_e8m0fnu` byte nearest to `value` (ties up); NaN for a value that is not a
/// positive finite number (in `f32`), and for one of `1.5 * 2**127` or more.
pub fn to_e8m0fnu(value: f64) -> u8 {
    // Through `f32`, as for the other formats: a value below `f32`'s range is zero, and so NaN.
    let value = f64::from(value as f32);
    if !(value.is_finite() && value > 0.0) {
        return 0xFF;
    }
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    // An `f64` subnormal is far below `2**-127`, the smallest value.
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
