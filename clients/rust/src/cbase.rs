//! The lmdb-c baseline's own C workloads (baselines/lmdbc/baseline.c, linked from
//! clients/native/build/libdbbbase.a), called once per request on this process's environment: the
//! "c" variant, so that the binding's overhead is measured against C in one process on one LMDB.

use libc::{c_char, c_int};
use lmdb_sys::MDB_env;

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub rows: i64,
    pub sum: u64,
}

/// baselines/lmdbc/baseline.h's codes of its own, besides LMDB's.
pub const BAD_VALUE: c_int = -1;
pub const NO_THREAD: c_int = -2;
pub const NO_MEMORY: c_int = -3;

extern "C" {
    pub fn dbb_scan(env: *mut MDB_env, dbi: u32, n: i64, out: *mut Tally, ns: *mut i64) -> c_int;
    pub fn dbb_lookups(env: *mut MDB_env, dbi: u32, emails: *const c_char, eoff: *const u32, idx: *const i32, n: i64,
                       lat: *mut i64, out: *mut Tally) -> c_int;
    pub fn dbb_insert(env: *mut MDB_env, dbi: u32, emails: *const c_char, eoff: *const u32, names: *const c_char,
                      noff: *const u32, ages: *const u8, n: i64, txn_size: i64, ns: *mut i64, done: *mut i64) -> c_int;
    pub fn dbb_scan_concurrent(env: *mut MDB_env, dbi: u32, readers: c_int, rows: i64, lat: *mut i64,
                               tallies: *mut Tally, wall: *mut i64) -> c_int;
    /// The C baseline's RowSum, which the tests hold the Rust one against.
    #[cfg(test)]
    pub fn dbb_rowsum(email: *const u8, en: usize, name: *const u8, nn: usize, age: c_int) -> u64;
}

/// One line for a code the C workloads return.
pub fn error(rc: c_int) -> String {
    match rc {
        BAD_VALUE => "a stored value is too short to be [age][name]".into(),
        NO_THREAD => "a reader thread could not be started".into(),
        NO_MEMORY => "out of memory".into(),
        _ => format!("LMDB: {}", lmdb::Error::from_err_code(rc)),
    }
}
