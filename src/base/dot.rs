//! The dot product of two vectors of floats, summed in one fixed order on every target, and
//! whether a vector can be compared at all: what the vector index scores with, and what
//! every door that takes a vector checks it by.

/// Lanes of the dot product: four groups of four. Sixteen independent sums keep four SIMD
/// registers busy (one add chain per register), where a four-lane loop waits on one add
/// chain.
const LANES: usize = 16;

/// `a · b` in [`LANES`] lanes summed in one fixed order, then the tail. The portable loop,
/// the SSE one (x86_64) and the SIMD128 one (wasm) add in the same order, so every target
/// gives bit-identical scores. Both slices have the same length.
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len() / LANES * LANES;
    let mut acc = [[0.0f32; 4]; 4];
    for (x, y) in a[..n].chunks_exact(LANES).zip(b[..n].chunks_exact(LANES)) {
        for (j, acc) in acc.iter_mut().enumerate() {
            for l in 0..4 {
                acc[l] += x[4 * j + l] * y[4 * j + l];
            }
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in a[n..].iter().zip(&b[n..]) {
        tail += x * y;
    }
    let v: [f32; 4] = std::array::from_fn(|l| (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]));
    ((v[0] + v[1]) + (v[2] + v[3])) + tail
}

/// The SSE form of the loop above (SSE2 is part of x86_64): left to itself LLVM vectorizes
/// the portable loop with a shuffle per four lanes, where four `mulps` and four `addps` do.
#[cfg(target_arch = "x86_64")]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    use core::arch::x86_64::*;
    let n = a.len() / LANES * LANES;
    let b = &b[..a.len()];
    // SAFETY: SSE2 is always present on x86_64; every load reads 4 floats at i + 4j with
    // i + 4j + 4 <= n <= a.len() == b.len(), and `loadu` needs no alignment.
    unsafe {
        let mut acc = [_mm_setzero_ps(); 4];
        let mut i = 0;
        while i < n {
            for (j, acc) in acc.iter_mut().enumerate() {
                let (x, y) = (_mm_loadu_ps(a.as_ptr().add(i + 4 * j)), _mm_loadu_ps(b.as_ptr().add(i + 4 * j)));
                *acc = _mm_add_ps(*acc, _mm_mul_ps(x, y));
            }
            i += LANES;
        }
        let mut tail = 0.0f32;
        for (x, y) in a[n..].iter().zip(&b[n..]) {
            tail += x * y;
        }
        let mut v = [0.0f32; 4];
        _mm_storeu_ps(v.as_mut_ptr(), _mm_add_ps(_mm_add_ps(acc[0], acc[1]), _mm_add_ps(acc[2], acc[3])));
        ((v[0] + v[1]) + (v[2] + v[3])) + tail
    }
}

/// The SIMD128 form of the loop above: four `f32x4` accumulators, lanes 4j..4j+3 in the j-th.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    use core::arch::wasm32::*;
    let n = a.len() / LANES * LANES;
    let b = &b[..a.len()];
    let mut acc = [f32x4_splat(0.0); 4];
    let mut i = 0;
    while i < n {
        for (j, acc) in acc.iter_mut().enumerate() {
            // SAFETY: i + 4j + 4 <= n <= a.len() == b.len(); v128_load needs no alignment.
            let (x, y) = unsafe { (v128_load(a.as_ptr().add(i + 4 * j).cast()), v128_load(b.as_ptr().add(i + 4 * j).cast())) };
            *acc = f32x4_add(*acc, f32x4_mul(x, y));
        }
        i += LANES;
    }
    let mut tail = 0.0f32;
    for (x, y) in a[n..].iter().zip(&b[n..]) {
        tail += x * y;
    }
    let v = f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3]));
    ((f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v)) + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))) + tail
}

/// Why a vector cannot be compared, or `None` when it can: a number in it is not finite, or
/// its squared norm, as the index computes it ([`dot`] in 32-bit floats), overflows. Such a
/// vector (`[3e38, 3e38]`) would make every cosine with it NaN, and a NaN score erases the
/// ranking of every record of its agent, so no door stores or queries one and no imported
/// image brings one.
pub fn unusable(v: &[f32]) -> Option<&'static str> {
    if v.iter().any(|x| !x.is_finite()) {
        Some("holds a number that is not finite")
    } else if !dot(v, v).is_finite() {
        Some("has a norm too large for 32-bit floats (its squared norm overflows); scale it down")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16-lane sum against a plain f64 dot product, on lengths around the lane count.
    #[test]
    fn dot_is_a_dot_product() {
        for len in [0, 1, 3, 15, 16, 17, 31, 33, 384, 385] {
            let a: Vec<f32> = (0..len).map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0).collect();
            let b: Vec<f32> = (0..len).map(|i| ((i * 5 % 11) as f32 - 5.0) / 4.0).collect();
            let want: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(dot(&a, &b)) - want).abs() < 1e-4, "len {len}");
        }
    }
}
