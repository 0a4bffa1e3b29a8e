//! dbbench-client-rust: dbbench's client protocol (docs/protocol.md, version 1) on stdin/stdout for
//! LMDB through Debian's lmdb crate, with the lmdb-c baseline's C loops in the same process as the
//! "c" variant. Logs go to stderr; stdout carries the protocol only.

mod cbase;
mod json;
mod persons;
mod rowsum;
mod store;

use json::{Obj, Value};
use std::io::{BufRead, Write};
use store::{Store, Variant};

/// The protocol versions this client speaks: 1, and 2 (capabilities store and keep_store: dbbench
/// reads the loaded store and every insert's fresh store back itself; the person file's salt needs
/// nothing, since names are read from the file).
const PROTOCOLS: [i64; 2] = [1, 2];
const CAPABILITIES: [&str; 2] = ["keep_store", "store"];
const WORKLOADS: [&str; 4] = ["scan", "lookup", "insert", "concurrent"];
const OPTIONS: [&str; 2] = ["map_size", "variant"];

/// The LMDB this process runs, as it reports itself (mdb_version): proves which library was linked.
fn lmdb_version() -> (String, String) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    let s = unsafe { std::ffi::CStr::from_ptr(lmdb_sys::mdb_version(&mut a, &mut b, &mut c)) };
    (format!("{}.{}.{}", a, b, c), s.to_string_lossy().into_owned())
}

struct Server {
    store: Option<Store>,
    /// The version hello agreed on.
    version: i64,
}

fn store_json(dir: &std::path::Path) -> String {
    Obj::new().str("kind", "lmdb").str("path", &dir.to_string_lossy()).end()
}

fn count(req: &Value, op: &str, field: &str) -> Result<i64, String> {
    match req.get(field).and_then(Value::as_int) {
        Some(v) if v >= 0 => Ok(v),
        _ => Err(format!("{}: {} must be a non-negative integer", op, field)),
    }
}

fn hex(v: u64) -> String {
    format!("{:016x}", v)
}

/// A size option: bytes as a number, or a string such as "1GiB", "512MiB", "4096".
fn parse_size(v: &Value) -> Result<usize, String> {
    let bad = || format!("map_size: want bytes or a size such as \"1GiB\", got {:?}", v);
    match v {
        Value::Int(n) if *n > 0 => Ok(*n as usize),
        Value::Str(s) => {
            let s = s.trim();
            let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let n: usize = s[..digits].parse().map_err(|_| bad())?;
            let mul: usize = match s[digits..].trim() {
                "" | "B" => 1,
                "KiB" => 1 << 10,
                "MiB" => 1 << 20,
                "GiB" => 1 << 30,
                "TiB" => 1 << 40,
                _ => return Err(bad()),
            };
            n.checked_mul(mul).filter(|&b| b > 0).ok_or_else(bad)
        }
        _ => Err(bad()),
    }
}

impl Server {
    fn handle(&mut self, req: &Value, op: &str) -> Result<Obj, String> {
        match op {
            "hello" => self.hello(req),
            "ping" => Ok(Obj::new()),
            "open" => self.open(req),
            "close" => {
                self.store = None;
                Ok(Obj::new())
            }
            "load" | "scan" | "lookup" | "insert" | "concurrent" | "run" | "drop" => {
                let st = self.store.as_mut().ok_or_else(|| format!("{} before open", op))?;
                work(st, req, op, self.version)
            }
            _ => Err(format!("unknown op {:?}", op)),
        }
    }

    fn hello(&mut self, req: &Value) -> Result<Obj, String> {
        let v = match req.get("protocol") {
            Some(Value::Int(v)) if PROTOCOLS.contains(v) => *v,
            Some(Value::Int(v)) => return Err(format!("protocol {} requested; this client speaks 1 and 2", v)),
            _ => return Err("hello: protocol must be an integer; this client speaks 1 and 2".into()),
        };
        self.version = v;
        let o = Obj::new()
            .int("protocol", v)
            .str("client", "dbbench-client-rust")
            .str("client_version", env!("CARGO_PKG_VERSION"))
            .str("language", "Rust")
            .str("runtime", env!("DBB_RUSTC_VERSION"))
            .str("library", "lmdb")
            .str("library_version", &lmdb_version().0)
            .strs("workloads", &WORKLOADS)
            .strs("options", &OPTIONS);
        Ok(if v >= 2 { o.strs("capabilities", &CAPABILITIES) } else { o })
    }

    fn open(&mut self, req: &Value) -> Result<Obj, String> {
        if self.store.is_some() {
            return Err("open: already open".into());
        }
        let opts = req.get("options");
        if let Some(Value::Object(m)) = opts {
            if let Some(k) = m.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
                return Err(format!("open: unknown option {:?} (options: {})", k, OPTIONS.join(", ")));
            }
        }
        let opt = |k: &str| opts.and_then(|o| o.get(k));
        let variant = match opt("variant").map(|v| v.as_str()) {
            None | Some(Some("crate")) => Variant::Crate,
            Some(Some("c")) => Variant::C,
            _ => return Err("open: variant must be \"crate\" or \"c\"".into()),
        };
        let map_size = match opt("map_size") {
            Some(v) => parse_size(v)?,
            None => 1 << 30,
        };
        let path = req.get("dataset").and_then(Value::as_str).ok_or("open: dataset must name the person file")?;
        let temp = req.get("temp_dir").and_then(Value::as_str).ok_or("open: temp_dir must be a directory")?;
        let p = persons::Persons::open(path)?;
        if let Some(n) = req.get("size").and_then(Value::as_int) {
            if n as usize != p.n {
                return Err(format!("open: size {} but the person file holds {} persons", n, p.n));
            }
        }
        let st = Store::open(p, temp, map_size, variant)?;
        let (ver, verstr) = lmdb_version();
        let (scan, lookup, insert, conc) = match variant {
            Variant::Crate => (
                "lmdb crate RoCursor::iter_start in one read txn; keys and values are slices into the map (no copy)",
                "Transaction::get, one spare read txn renewed before and reset after each lookup",
                "RwTransaction::put per row (value [age][name] built in a reused Vec) in one write txn",
                "std::thread::scope, one OS thread per reader, released together by an atomic flag",
            ),
            Variant::C => (
                "dbb_scan: the lmdb-c baseline's C loop, one call",
                "dbb_lookups: the lmdb-c baseline's C loop (renew/get/reset per lookup, timed in C)",
                "dbb_insert: the lmdb-c baseline's C loop (mdb_put per row, begin to commit timed in C)",
                "dbb_scan_concurrent: the lmdb-c baseline's pthreads",
            ),
        };
        let info = Obj::new()
            .str("variant", if variant == Variant::C { "c" } else { "crate" })
            .str("lmdb_version", &ver)
            .str("lmdb_build", &format!("{} (lmdb-go's vendored sources, linked statically)", verstr))
            .str("lmdb_crate", "lmdb 0.8 (Debian librust-lmdb-dev)")
            .str("rustc", env!("DBB_RUSTC_VERSION"))
            .int("map_size", map_size as i64)
            .bool("sync", false)
            .str("env_flags", "MDB_NOSYNC|MDB_NOTLS")
            .str("load_path", "RwTransaction::put with MDB_APPEND in email order, one write txn")
            .str("scan_path", scan)
            .str("lookup_path", lookup)
            .str("insert_path", insert)
            .str("concurrency", conc)
            .end();
        self.store = Some(st);
        Ok(Obj::new().raw("info", &info).bool("scans_in_key_order", true))
    }
}

fn work(st: &mut Store, req: &Value, op: &str, version: i64) -> Result<Obj, String> {
    match op {
        "load" => {
            let t = st.load()?;
            let o = Obj::new().int("rows", t.rows).int("elapsed_ns", t.ns);
            Ok(if version >= 2 { o.raw("store", &store_json(st.path())) } else { o })
        }
        "drop" => {
            st.drop_kept()?;
            Ok(Obj::new())
        }
        "scan" => {
            let t = st.scan(count(req, op, "rows")?)?;
            Ok(Obj::new().int("rows", t.rows).str("checksum", &hex(t.sum)).int("elapsed_ns", t.ns))
        }
        "lookup" => {
            let n = st.p.n as i64;
            let keys: Option<Vec<i32>> = match req.get("keys") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|k| k.as_int().filter(|&k| k >= 0 && k < n).map(|k| k as i32))
                    .collect(),
                _ => None,
            };
            let keys = keys.ok_or_else(|| format!("lookup: keys must be a list of dataset indices in [0, {})", n))?;
            let mut lat = Vec::with_capacity(keys.len());
            let (rows, sum) = st.lookup(&keys, &mut lat)?;
            Ok(Obj::new().int("rows", rows).str("checksum", &hex(sum)).ints("latencies_ns", &lat))
        }
        "insert" => {
            let rows = count(req, op, "rows")?;
            if rows as usize > st.p.n {
                return Err(format!("insert: rows {} > {} persons in the dataset", rows, st.p.n));
            }
            let keep = matches!(req.get("keep"), Some(Value::Bool(true)));
            let (t, kept) = st.insert(rows, keep)?;
            let o = Obj::new().int("rows", t.rows).str("checksum", &hex(t.sum)).int("elapsed_ns", t.ns);
            Ok(match kept {
                Some(dir) => o.raw("store", &store_json(&dir)),
                None => o,
            })
        }
        "concurrent" => {
            let readers = count(req, op, "readers")?;
            if !(1..=100).contains(&readers) {
                return Err("concurrent: readers must be 1 to 100 (the reader table holds 126)".into());
            }
            let (wall, ts) = st.concurrent(readers as usize, count(req, op, "rows")?)?;
            let rs: Vec<String> = ts
                .iter()
                .map(|t| Obj::new().int("rows", t.rows).str("checksum", &hex(t.sum)).int("elapsed_ns", t.ns).end())
                .collect();
            Ok(Obj::new().int("wall_ns", wall).raw("readers", &format!("[{}]", rs.join(","))))
        }
        _ => Err(format!(
            "run: this client has no adapter-specific workloads (asked for {:?})",
            req.get("workload").and_then(Value::as_str).unwrap_or("")
        )),
    }
}

/// The reply line to one request line.
fn answer(server: &mut Server, line: &str) -> String {
    let req = match json::parse(line) {
        Ok(v) => v,
        Err(e) => return Obj::new().int("id", 0).str("error", &format!("request is not JSON: {}", e)).end(),
    };
    let id = match (&req, req.get("id").and_then(Value::as_int)) {
        (Value::Object(_), Some(id)) => id,
        (Value::Object(_), None) => return Obj::new().int("id", 0).str("error", "request has no integer id").end(),
        _ => return Obj::new().int("id", 0).str("error", "request is not a JSON object").end(),
    };
    let op = req.get("op").and_then(Value::as_str).unwrap_or("");
    match server.handle(&req, op) {
        Ok(o) => o.int("id", id).end(),
        Err(e) => {
            let e = e.split_whitespace().collect::<Vec<_>>().join(" ");
            if !matches!(op, "hello" | "open") && !e.contains("before open") && !e.starts_with("unknown op") {
                eprintln!("dbbench-client-rust: {} failed: {}", op, e);
            }
            Obj::new().int("id", id).str("error", &e).end()
        }
    }
}

fn main() {
    if std::env::args().len() > 1 {
        eprintln!("usage: dbbench-client-rust (speaks docs/protocol.md on stdin/stdout; choose the variant with the client option variant: crate|c)");
        std::process::exit(2);
    }
    let mut server = Server { store: None, version: 1 };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // not UTF-8: answer like any other unreadable request, keep serving
                let r = Obj::new().int("id", 0).str("error", &format!("request is not UTF-8 JSON: {}", e)).end();
                if writeln!(out, "{}", r).and_then(|_| out.flush()).is_err() {
                    break;
                }
                continue;
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&mut server, line.trim_end());
        if writeln!(out, "{}", reply).and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    drop(server);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> Vec<Value> {
        let mut s = Server { store: None, version: 1 };
        lines.iter().map(|l| json::parse(&answer(&mut s, l)).unwrap()).collect()
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(&Value::Str("1GiB".into())), Ok(1 << 30));
        assert_eq!(parse_size(&Value::Int(4096)), Ok(4096));
        for bad in [Value::Str("1GB".into()), Value::Int(0), Value::Str("GiB".into()), Value::Bool(true)] {
            assert!(parse_size(&bad).is_err(), "{:?}", bad);
        }
    }

    #[test]
    fn linked_lmdb_is_the_vendored_one() {
        // not Debian's liblmdb (0.9.24): the version of clients/native/build, lmdb-go's sources
        assert_eq!(lmdb_version().0, env!("DBB_LMDB_VERSION"));
        assert_ne!(lmdb_version().0, "0.9.24");
    }

    /// Runs f once per variant with that variant's open request (its id 2, the test file, options
    /// before "variant"), on a temp_dir of its own that is removed after.
    fn both_variants(test: &str, options: &str, f: impl Fn(&str)) {
        for variant in ["crate", "c"] {
            let dir = std::env::temp_dir().join(format!("dbbench-rust-{}-{}-{}", test, std::process::id(), variant));
            std::fs::create_dir_all(&dir).unwrap();
            let open = format!(
                r#"{{"id":2,"op":"open","options":{{{}"variant":"{}"}},"size":1000,"seed":1,"temp_dir":{:?},"dataset":{:?}}}"#,
                options, variant, dir.to_str().unwrap(), persons::tests::testfile()
            );
            f(&open);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn a_session_on_the_test_file() {
        both_variants("test", r#""map_size":"64MiB","#, |open| {
            let r = session(&[
                r#"{"id":1,"op":"hello","protocol":1,"dbbench":"test"}"#,
                open,
                r#"{"id":3,"op":"load"}"#,
                r#"{"id":4,"op":"scan","rows":1000}"#,
                r#"{"id":5,"op":"scan","rows":10}"#,
                r#"{"id":6,"op":"lookup","keys":[0,0,999]}"#,
                r#"{"id":7,"op":"insert","rows":10}"#,
                r#"{"id":8,"op":"concurrent","readers":2,"rows":1000}"#,
                r#"{"id":9,"op":"frobnicate"}"#,
                r#"{"id": 1, "op": "scan", "rows": "#,
                r#"{"id":10,"op":"lookup","keys":[1000]}"#,
                r#"{"id":11,"op":"close"}"#,
            ]);
            let s = |i: usize, k: &str| r[i].get(k).and_then(Value::as_str).map(String::from);
            let n = |i: usize, k: &str| r[i].get(k).and_then(Value::as_int);
            assert_eq!(s(0, "library_version").as_deref(), Some(env!("DBB_LMDB_VERSION")));
            assert!(r[1].get("info").is_some(), "{:?}", r[1]);
            assert_eq!(n(2, "rows"), Some(1000));
            assert_eq!((n(3, "rows"), s(3, "checksum").as_deref()), (Some(1000), Some("9a8d33d6f43e47cd")));
            assert_eq!((n(4, "rows"), s(4, "checksum").as_deref()), (Some(10), Some("2f9e6b50f7811139")));
            assert_eq!(n(5, "rows"), Some(3));
            match r[5].get("latencies_ns") {
                Some(Value::Array(a)) => assert_eq!(a.len(), 3),
                other => panic!("latencies {:?}", other),
            }
            assert_eq!((n(6, "rows"), s(6, "checksum").as_deref()), (Some(10), Some("e27dc92647c5e680")));
            match r[7].get("readers") {
                Some(Value::Array(a)) => {
                    assert_eq!(a.len(), 2);
                    for x in a {
                        assert_eq!(x.get("checksum").and_then(Value::as_str), Some("9a8d33d6f43e47cd"));
                    }
                }
                other => panic!("readers {:?}", other),
            }
            assert!(n(7, "wall_ns").unwrap() > 0);
            assert!(s(8, "error").is_some() && n(8, "id") == Some(9));
            assert!(s(9, "error").is_some() && n(9, "id") == Some(0));
            assert!(s(10, "error").is_some());
            assert_eq!(r[11].get("error"), None);
        });
    }

    #[test]
    fn protocol_2_stores_and_keep() {
        both_variants("v2", "", |open| {
            let mut s = Server { store: None, version: 1 };
            let mut ask = |l: &str| json::parse(&answer(&mut s, l)).unwrap();
            let h = ask(r#"{"id":1,"op":"hello","protocol":2}"#);
            assert_eq!(h.get("protocol").and_then(Value::as_int), Some(2));
            assert_eq!(h.get("capabilities"), Some(&Value::Array(vec![Value::Str("keep_store".into()), Value::Str("store".into())])));
            ask(open);
            let path = |v: &Value| {
                assert_eq!(v.get("store").and_then(|s| s.get("kind")).and_then(Value::as_str), Some("lmdb"), "{:?}", v);
                std::path::PathBuf::from(v.get("store").and_then(|s| s.get("path")).and_then(Value::as_str).unwrap())
            };
            let loaded = path(&ask(r#"{"id":3,"op":"load"}"#));
            assert!(loaded.join("data.mdb").metadata().unwrap().len() > 0);
            let ins = ask(r#"{"id":4,"op":"insert","rows":10,"keep":true}"#);
            let kept = path(&ins);
            assert_eq!(ins.get("checksum").and_then(Value::as_str), Some("e27dc92647c5e680"));
            assert!(kept.join("data.mdb").exists() && kept != loaded);
            // the kept environment holds the 10 persons, read by another handle than the client's
            let env = lmdb::Environment::new().set_flags(lmdb::EnvironmentFlags::READ_ONLY).open(&kept).unwrap();
            assert_eq!(env.stat().unwrap().entries(), 10);
            drop(env);
            assert!(ask(r#"{"id":5,"op":"insert","rows":10,"keep":true}"#).get("error").is_some());
            assert_eq!(ask(r#"{"id":6,"op":"drop"}"#).get("error"), None);
            assert!(!kept.exists());
            assert!(ask(r#"{"id":7,"op":"drop"}"#).get("error").is_some());
            let again = path(&ask(r#"{"id":8,"op":"insert","rows":5,"keep":true}"#));
            ask(r#"{"id":9,"op":"close"}"#);
            assert!(!again.exists(), "close drops a kept store");
            let v1 = ask(r#"{"id":10,"op":"hello","protocol":1}"#);
            assert_eq!((v1.get("protocol").and_then(Value::as_int), v1.get("capabilities")), (Some(1), None));
        });
    }

    #[test]
    fn refuses_before_open_and_wrong_protocol() {
        let r = session(&[r#"{"id":1,"op":"hello","protocol":3}"#, r#"{"id":2,"op":"scan","rows":1}"#, r#"[1]"#]);
        assert!(r.iter().all(|v| v.get("error").is_some()), "{:?}", r);
        assert_eq!(r[2].get("id").and_then(Value::as_int), Some(0));
    }
}
