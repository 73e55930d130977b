// SPDX-License-Identifier: GPL-2.0
// Rust names for demangling (legacy or v0 mangling, by rustc's flags).
use std::time::{Duration, Instant};

mod pmtest {
    #[inline(never)]
    pub fn crunch(end: super::Instant) -> u64 {
        let mut x: u64 = 1;
        loop {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_mul(2862933555777941757).wrapping_add(3037000493));
            }
            if super::Instant::now() >= end {
                return x;
            }
        }
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    std::process::exit((pmtest::crunch(end) & 1) as i32 * 0);
}
