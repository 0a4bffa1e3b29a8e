// Links the lmdb-c baseline's C workloads (clients/native/build/libdbbbase.a, built by
// clients/native/build-lmdb) and records, for hello and the tests, the rustc that compiles this crate
// and the LMDB version the native build holds. lmdb-sys finds that same build's liblmdb.a through
// pkg-config (PKG_CONFIG_LIBDIR in .cargo/config.toml), never Debian's liblmdb.
use std::env;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let native = manifest.join("../native/build");
    let pc = native.join("lmdb.pc");
    let text = fs::read_to_string(&pc).unwrap_or_else(|e| {
        panic!("{}: {} (run clients/rust/build, which builds it first)", pc.display(), e)
    });
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("Version: "))
        .expect("lmdb.pc has no Version line")
        .trim()
        .to_string();
    println!("cargo:rustc-env=DBB_LMDB_VERSION={}", version);
    println!("cargo:rustc-link-search=native={}", native.display());
    println!("cargo:rustc-link-lib=static=dbbbase");
    println!("cargo:rerun-if-changed={}", pc.display());
    println!("cargo:rerun-if-changed={}", native.join("libdbbbase.a").display());
    println!("cargo:rerun-if-changed={}", native.join("liblmdb.a").display());

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(&rustc).arg("--version").output().expect("rustc --version");
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    println!("cargo:rustc-env=DBB_RUSTC_VERSION={}", v);
}
