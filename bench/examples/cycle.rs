//! One permit's whole life, `CYCLES` times: for `valgrind --tool=callgrind`, whose instruction
//! counts do not move with machine noise.
//!
//! ```text
//! cargo build --release -p limiter-bench --example cycle
//! valgrind --tool=callgrind target/release/examples/cycle
//! ```

use std::hint::black_box;

use limiter_core::{AimdConfig, AimdF32};
use limiter_tokio::Limiter;

const CYCLES: u32 = 100_000;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    let limiter = Limiter::new(AimdF32::new(AimdConfig::default().initial(8)).expect("valid"));
    for _ in 0..CYCLES {
        black_box(limiter.try_acquire().expect("room")).success();
    }
    println!("{CYCLES} cycles, limit {}", limiter.limit());
}
