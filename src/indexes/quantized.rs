//! A vector held as one signed byte per number, and how far a cosine computed from those
//! bytes can be from the exact one: what lets the vector index hold a 100k-memory of
//! 384-dimension vectors in a quarter of the memory (an edge isolate's 128 MB holds all of
//! its objects) and still rank exactly. The index ranks by the cosines of the codes, then
//! reads the exact vectors of only the rows whose exact cosine could reach the best
//! (`crate::indexes::vectors`).
//!
//! A row's codes are its numbers divided by one step (its largest magnitude over 127),
//! rounded. The bound is Cauchy–Schwarz: for any query `q`, `|q·x − q·x̂| ≤ |q|·|x − x̂|`,
//! so the cosine of the codes is within `|x − x̂| / |x|` of the exact one, whatever the
//! query; the bound adds what 32-bit rounding can add to either sum.

/// Lanes of [`dot_codes`], as [`crate::base::dot`]'s: one fixed order of sums on every
/// target, so the scores of the codes are bit-identical everywhere.
const LANES: usize = 16;

/// A vector's codes, the value of one code, and the bound on how far a cosine computed from
/// them is from the exact one.
pub struct Quantized {
    pub codes: Vec<i8>,
    pub step: f32,
    pub slack: f32,
}

/// `v` as codes (see the module).
pub fn quantize(v: &[f32]) -> Quantized {
    let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let step = largest / 127.0;
    let codes: Vec<i8> = v.iter().map(|x| if step > 0.0 { (x / step).round().clamp(-127.0, 127.0) as i8 } else { 0 }).collect();
    let (mut off, mut square) = (0.0f64, 0.0f64);
    for (x, c) in v.iter().zip(&codes) {
        let d = f64::from(*x) - f64::from(*c) * f64::from(step);
        off += d * d;
        square += f64::from(*x) * f64::from(*x);
    }
    let relative = if square > 0.0 { (off / square).sqrt() } else { 0.0 };
    // Both sums are taken in f32 over `len` products, each within `len`·2⁻²⁴ of the true sum
    // relative to |q|·|x| (|x̂| ≤ |x|·(1 + relative)); counted twice over, and rounded up.
    let rounding = (v.len() as f64 + 4.0) * 2f64.powi(-22) * (2.0 + relative);
    let slack = ((relative + rounding) * (1.0 + 2f64.powi(-20))) as f32;
    Quantized { codes, step, slack }
}

/// `q · codes` in [`LANES`] lanes, the lanes then halved (lane `l` adds lane `l + w` for
/// `w` = 8, 4, 2, 1), then the tail: the portable loop, the SSE2 one (x86_64) and the
/// SIMD128 one (wasm) add in this order, so every target gives bit-identical scores. The
/// codes' cosine is this times the step, over the norms.
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
pub fn dot_codes(q: &[f32], codes: &[i8]) -> f32 {
    let n = q.len() / LANES * LANES;
    let codes = &codes[..q.len()];
    let mut acc = [0.0f32; LANES];
    for (x, c) in q[..n].chunks_exact(LANES).zip(codes[..n].chunks_exact(LANES)) {
        for l in 0..LANES {
            acc[l] += x[l] * f32::from(c[l]);
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] += acc[l + width];
        }
    }
    acc[0] + tail(&q[n..], &codes[n..])
}

/// The SSE2 form of the loop above: sixteen codes widened to four vectors of four floats.
#[cfg(target_arch = "x86_64")]
pub fn dot_codes(q: &[f32], codes: &[i8]) -> f32 {
    use core::arch::x86_64::*;
    let n = q.len() / LANES * LANES;
    let codes = &codes[..q.len()];
    // SAFETY: SSE2 is always present on x86_64; every load reads at i..i + 16 with
    // i + 16 <= n <= q.len() == codes.len(), and `loadu` needs no alignment.
    unsafe {
        let mut acc = [_mm_setzero_ps(); 4];
        let mut i = 0;
        while i < n {
            let c = _mm_loadu_si128(codes.as_ptr().add(i).cast());
            // Sign-extended by pairing each byte with itself and shifting back.
            let (low, high) = (_mm_srai_epi16(_mm_unpacklo_epi8(c, c), 8), _mm_srai_epi16(_mm_unpackhi_epi8(c, c), 8));
            let wide = [
                _mm_srai_epi32(_mm_unpacklo_epi16(low, low), 16),
                _mm_srai_epi32(_mm_unpackhi_epi16(low, low), 16),
                _mm_srai_epi32(_mm_unpacklo_epi16(high, high), 16),
                _mm_srai_epi32(_mm_unpackhi_epi16(high, high), 16),
            ];
            for (j, acc) in acc.iter_mut().enumerate() {
                let x = _mm_loadu_ps(q.as_ptr().add(i + 4 * j));
                *acc = _mm_add_ps(*acc, _mm_mul_ps(x, _mm_cvtepi32_ps(wide[j])));
            }
            i += LANES;
        }
        let v = _mm_add_ps(_mm_add_ps(acc[0], acc[2]), _mm_add_ps(acc[1], acc[3]));
        let mut lanes = [0.0f32; 4];
        _mm_storeu_ps(lanes.as_mut_ptr(), v);
        ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3])) + tail(&q[n..], &codes[n..])
    }
}

/// The SIMD128 form of the loop above.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn dot_codes(q: &[f32], codes: &[i8]) -> f32 {
    use core::arch::wasm32::*;
    let n = q.len() / LANES * LANES;
    let codes = &codes[..q.len()];
    let mut acc = [f32x4_splat(0.0); 4];
    let mut i = 0;
    while i < n {
        // SAFETY: i + 16 <= n <= q.len() == codes.len(); v128_load needs no alignment.
        let c = unsafe { v128_load(codes.as_ptr().add(i).cast()) };
        let (low, high) = (i16x8_extend_low_i8x16(c), i16x8_extend_high_i8x16(c));
        let wide = [i32x4_extend_low_i16x8(low), i32x4_extend_high_i16x8(low), i32x4_extend_low_i16x8(high), i32x4_extend_high_i16x8(high)];
        for (j, acc) in acc.iter_mut().enumerate() {
            // SAFETY: as above, four floats at i + 4j.
            let x = unsafe { v128_load(q.as_ptr().add(i + 4 * j).cast()) };
            *acc = f32x4_add(*acc, f32x4_mul(x, f32x4_convert_i32x4(wide[j])));
        }
        i += LANES;
    }
    let v = f32x4_add(f32x4_add(acc[0], acc[2]), f32x4_add(acc[1], acc[3]));
    ((f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<2>(v)) + (f32x4_extract_lane::<1>(v) + f32x4_extract_lane::<3>(v)))
        + tail(&q[n..], &codes[n..])
}

/// The products past the last whole group of lanes, in order.
fn tail(q: &[f32], codes: &[i8]) -> f32 {
    let mut sum = 0.0f32;
    for (x, c) in q.iter().zip(codes) {
        sum += x * f32::from(*c);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::dot::dot;
    use proptest::prelude::*;

    fn cosine_of_codes(q: &[f32], x: &Quantized, square: f32) -> f64 {
        let denom = crate::indexes::vectors::norm(q) * f64::from(square).sqrt();
        if denom == 0.0 {
            0.0
        } else {
            f64::from(x.step * dot_codes(q, &x.codes)) / denom
        }
    }

    proptest! {
        /// The cosine of the codes is within the row's slack of the exact cosine, for vectors
        /// of every scale and length, skewed ones (one large number) included.
        #[test]
        fn the_cosine_of_the_codes_is_within_the_slack(
            dim in 1usize..70,
            seed in any::<u64>(),
            scale in prop::sample::select(vec![1e-30f32, 1e-3, 1.0, 1e3, 1e30]),
            spike in any::<bool>(),
        ) {
            let mut s = seed;
            let mut draw = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5 };
            let mut x: Vec<f32> = (0..dim).map(|_| draw() * scale).collect();
            if spike { x[0] *= 1000.0; }
            let q: Vec<f32> = (0..dim).map(|_| draw()).collect();
            let square = dot(&x, &x);
            prop_assume!(square.is_finite());
            let quantized = quantize(&x);
            let exact = crate::indexes::vectors::cosine(&q, crate::indexes::vectors::norm(&q), &x, square);
            let approx = cosine_of_codes(&q, &quantized, square);
            prop_assert!((exact - approx).abs() <= f64::from(quantized.slack), "{exact} {approx} {}", quantized.slack);
        }
    }

    /// The lanes' sum is a dot product.
    #[test]
    fn dot_codes_is_a_dot_product() {
        for len in [0, 1, 15, 16, 17, 384, 385] {
            let q: Vec<f32> = (0..len).map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0).collect();
            let c: Vec<i8> = (0..len).map(|i| (i * 37 % 255) as i16 as i8).collect();
            let want: f64 = q.iter().zip(&c).map(|(x, c)| f64::from(*x) * f64::from(*c)).sum();
            assert!((f64::from(dot_codes(&q, &c)) - want).abs() < 1e-2, "len {len}");
        }
    }
}
