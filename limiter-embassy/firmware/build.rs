//! Picks the board from the target: its memory map (memory.x for cortex-m-rt) and the clock its
//! SysTick counts in QEMU.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let target = env::var("TARGET").unwrap_or_default();
    // (board, FLASH origin/length, RAM origin/length, SysTick Hz in QEMU)
    let (board, flash, ram, hz) = match target.as_str() {
        "thumbv6m-none-eabi" => (
            "microbit",
            "0x00000000, LENGTH = 256K",
            "0x20000000, LENGTH = 16K",
            16_000_000,
        ),
        "thumbv7em-none-eabihf" => (
            "mps2-an386",
            "0x00000000, LENGTH = 4M",
            "0x20000000, LENGTH = 4M",
            25_000_000,
        ),
        _ => (
            "lm3s6965evb",
            "0x00000000, LENGTH = 256K",
            "0x20000000, LENGTH = 64K",
            12_500_000,
        ),
    };
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let memory = format!("MEMORY\n{{\n  FLASH : ORIGIN = {flash}\n  RAM : ORIGIN = {ram}\n}}\n");
    fs::write(out.join("memory.x"), memory).unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-env=BOARD={board}");
    println!("cargo:rustc-env=SYSTICK_HZ={hz}");
    println!("cargo:rerun-if-changed=build.rs");
}
