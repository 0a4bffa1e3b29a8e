//! The LMDB store: an environment in temp_dir opened like dbbench's LMDB targets (MDB_NOSYNC, one
//! unnamed database, key = email bytes, value = [age u8][name bytes]), and the four common workloads,
//! each either through the lmdb crate (variant "crate") or through the lmdb-c baseline's C loops in
//! this process (variant "c").

use crate::cbase::{self, Tally};
use crate::persons::Persons;
use crate::rowsum::rowsum;
use lmdb::{Cursor, Database, Environment, EnvironmentFlags, Transaction, WriteFlags};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Variant {
    /// Debian's lmdb crate (0.8), zero-copy slices into the map.
    Crate,
    /// The lmdb-c baseline's C workloads, one call per request.
    C,
}

pub struct Store {
    pub p: Persons,
    env: Environment,
    db: Database,
    dir: PathBuf,
    map_size: usize,
    variant: Variant,
    inserts: u64,
    /// The fresh store an insert with keep left for dbbench to read (protocol 2), until drop.
    kept: Option<PathBuf>,
}

pub struct Timed {
    pub rows: i64,
    pub sum: u64,
    pub ns: i64,
}

fn lmdb_err(what: &str, e: lmdb::Error) -> String {
    format!("{}: LMDB: {}", what, e)
}

fn ns_since(t0: Instant) -> i64 {
    t0.elapsed().as_nanos() as i64
}

fn open_env(dir: &Path, map_size: usize, readers: u32) -> Result<(Environment, Database), String> {
    let env = Environment::new()
        .set_flags(EnvironmentFlags::NO_SYNC | EnvironmentFlags::NO_TLS)
        .set_map_size(map_size)
        .set_max_readers(readers)
        .open(dir)
        .map_err(|e| lmdb_err(&format!("open an LMDB environment in {}", dir.display()), e))?;
    let db = env.open_db(None).map_err(|e| lmdb_err("open the unnamed database", e))?;
    Ok((env, db))
}

/// Readers a store allows: LMDB's default table size, as dbbench's LMDB targets.
const MAX_READERS: u32 = 126;

/// A scan of up to n pairs in one read transaction, each decoded and folded into RowSum.
fn scan_crate(env: &Environment, db: Database, n: i64) -> Result<Timed, String> {
    let (mut rows, mut sum) = (0i64, 0u64);
    let t0 = Instant::now();
    let txn = env.begin_ro_txn().map_err(|e| lmdb_err("begin a read transaction", e))?;
    {
        let mut c = txn.open_ro_cursor(db).map_err(|e| lmdb_err("open a cursor", e))?;
        for (k, v) in c.iter_start().take(n.max(0) as usize) {
            if v.is_empty() {
                return Err("a stored value is too short to be [age][name]".into());
            }
            sum = sum.wrapping_add(rowsum(k, &v[1..], v[0]));
            rows += 1;
        }
    }
    txn.abort();
    Ok(Timed { rows, sum, ns: ns_since(t0) })
}

fn c_result(rc: i32) -> Result<(), String> {
    if rc == 0 {
        Ok(())
    } else {
        Err(cbase::error(rc))
    }
}

impl Store {
    pub fn open(p: Persons, temp_dir: &str, map_size: usize, variant: Variant) -> Result<Store, String> {
        let dir = Path::new(temp_dir).join("lmdb");
        std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {}", dir.display(), e))?;
        let (env, db) = open_env(&dir, map_size, MAX_READERS)?;
        Ok(Store { p, env, db, dir, map_size, variant, inserts: 0, kept: None })
    }

    /// Stores every person in email order with MDB_APPEND in one write transaction (the LMDB targets'
    /// bulk path).
    pub fn load(&mut self) -> Result<Timed, String> {
        let t0 = Instant::now();
        let mut txn = self.env.begin_rw_txn().map_err(|e| lmdb_err("begin the load", e))?;
        let mut val = Vec::with_capacity(64);
        for &i in &self.p.sorted {
            let i = i as usize;
            val.clear();
            val.push(self.p.age(i));
            val.extend_from_slice(self.p.name(i));
            txn.put(self.db, &self.p.email(i), &val, WriteFlags::APPEND).map_err(|e| self.write_err(e))?;
        }
        txn.commit().map_err(|e| self.write_err(e))?;
        Ok(Timed { rows: self.p.n as i64, sum: 0, ns: ns_since(t0) })
    }

    fn write_err(&self, e: lmdb::Error) -> String {
        if e == lmdb::Error::MapFull {
            format!("the LMDB map is full at map_size {} bytes: raise the map_size option", self.map_size)
        } else {
            lmdb_err("write", e)
        }
    }

    pub fn scan(&self, n: i64) -> Result<Timed, String> {
        match self.variant {
            Variant::Crate => scan_crate(&self.env, self.db, n),
            Variant::C => {
                let (mut t, mut ns) = (Tally::default(), 0i64);
                c_result(unsafe { cbase::dbb_scan(self.env.env(), self.db.dbi(), n, &mut t, &mut ns) })?;
                Ok(Timed { rows: t.rows, sum: t.sum, ns })
            }
        }
    }

    /// Looks up each person in its own read transaction: one spare transaction, renewed before and
    /// reset after every lookup (the lmdb-c baseline's strategy), timed per lookup.
    pub fn lookup(&self, keys: &[i32], lat: &mut Vec<i64>) -> Result<(i64, u64), String> {
        if self.variant == Variant::C {
            let mut t = Tally::default();
            lat.resize(keys.len(), 0);
            c_result(unsafe {
                cbase::dbb_lookups(self.env.env(), self.db.dbi(), self.p.emails_ptr() as _, self.p.eoff().as_ptr(),
                                   keys.as_ptr(), keys.len() as i64, lat.as_mut_ptr(), &mut t)
            })?;
            return Ok((t.rows, t.sum));
        }
        let (mut rows, mut sum) = (0i64, 0u64);
        let mut spare = self.env.begin_ro_txn().map_err(|e| lmdb_err("begin a read transaction", e))?.reset();
        for &i in keys {
            let email = self.p.email(i as usize);
            let t0 = Instant::now();
            let txn = spare.renew().map_err(|e| lmdb_err("renew a read transaction", e))?;
            match txn.get(self.db, &email) {
                Ok(v) if v.is_empty() => return Err("a stored value is too short to be [age][name]".into()),
                Ok(v) => {
                    sum = sum.wrapping_add(rowsum(email, &v[1..], v[0]));
                    rows += 1;
                }
                Err(lmdb::Error::NotFound) => {}
                Err(e) => return Err(lmdb_err("get", e)),
            }
            spare = txn.reset();
            lat.push(ns_since(t0));
        }
        Ok((rows, sum))
    }

    /// The loaded environment's directory (protocol 2's store description).
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Inserts persons 0..n one by one into a fresh environment in one write transaction (timed begin
    /// to commit), then reads it back untimed. Without keep it is removed at once; with keep (protocol
    /// 2) it stays, closed, for dbbench to read, until drop; its directory is returned.
    pub fn insert(&mut self, n: i64, keep: bool) -> Result<(Timed, Option<PathBuf>), String> {
        if self.kept.is_some() {
            return Err("insert: the previous insert's store is kept: drop it first".into());
        }
        self.inserts += 1;
        let dir = self.dir.with_file_name(format!("insert-{}", self.inserts));
        std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {}", dir.display(), e))?;
        let res = self.insert_into(&dir, n);
        if keep && res.is_ok() {
            self.kept = Some(dir.clone());
            return res.map(|t| (t, Some(dir)));
        }
        let _ = std::fs::remove_dir_all(&dir);
        res.map(|t| (t, None))
    }

    /// Removes the store the last insert kept (protocol 2's drop).
    pub fn drop_kept(&mut self) -> Result<(), String> {
        let dir = self.kept.take().ok_or("drop: no insert's store is kept")?;
        std::fs::remove_dir_all(&dir).map_err(|e| format!("drop: remove {}: {}", dir.display(), e))
    }

    fn insert_into(&self, dir: &Path, n: i64) -> Result<Timed, String> {
        let (env, db) = open_env(dir, self.map_size, MAX_READERS)?;
        let ns = match self.variant {
            Variant::C => {
                let (mut ns, mut done) = (0i64, 0i64);
                let p = &self.p;
                c_result(unsafe {
                    cbase::dbb_insert(env.env(), db.dbi(), p.emails_ptr() as _, p.eoff().as_ptr(), p.names_ptr() as _,
                                      p.noff().as_ptr(), p.ages_ptr(), n, 0, &mut ns, &mut done)
                })?;
                ns
            }
            Variant::Crate => {
                let mut val = Vec::with_capacity(64);
                let t0 = Instant::now();
                let mut txn = env.begin_rw_txn().map_err(|e| lmdb_err("begin the insert", e))?;
                for i in 0..n as usize {
                    val.clear();
                    val.push(self.p.age(i));
                    val.extend_from_slice(self.p.name(i));
                    txn.put(db, &self.p.email(i), &val, WriteFlags::empty()).map_err(|e| self.write_err(e))?;
                }
                txn.commit().map_err(|e| self.write_err(e))?;
                ns_since(t0)
            }
        };
        let back = scan_crate(&env, db, n + 1)?;
        Ok(Timed { ns, ..back })
    }

    /// K reader threads, each scanning rows pairs in its own read transaction, released together.
    /// Returns the wall time (release to the last reader's end) and each reader's tally.
    pub fn concurrent(&self, readers: usize, rows: i64) -> Result<(i64, Vec<Timed>), String> {
        if self.variant == Variant::C {
            let mut lat = vec![0i64; readers];
            let mut t = vec![Tally::default(); readers];
            let mut wall = 0i64;
            c_result(unsafe {
                cbase::dbb_scan_concurrent(self.env.env(), self.db.dbi(), readers as i32, rows, lat.as_mut_ptr(),
                                           t.as_mut_ptr(), &mut wall)
            })?;
            return Ok((wall, t.iter().zip(lat).map(|(t, ns)| Timed { rows: t.rows, sum: t.sum, ns }).collect()));
        }
        let ready = AtomicUsize::new(0);
        let go = AtomicBool::new(false);
        let (env, db) = (&self.env, self.db);
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..readers)
                .map(|_| {
                    s.spawn(|| {
                        ready.fetch_add(1, Ordering::AcqRel);
                        while !go.load(Ordering::Acquire) {
                            std::thread::yield_now();
                        }
                        let r = scan_crate(env, db, rows);
                        (r, Instant::now())
                    })
                })
                .collect();
            while ready.load(Ordering::Acquire) < readers {
                std::thread::yield_now();
            }
            let t0 = Instant::now();
            go.store(true, Ordering::Release);
            let mut out = Vec::with_capacity(readers);
            let mut last = t0;
            for h in hs {
                let (r, end) = h.join().map_err(|_| "a reader thread panicked".to_string())?;
                out.push(r?);
                last = last.max(end);
            }
            Ok(((last - t0).as_nanos() as i64, out))
        })
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(k) = self.kept.take() {
            let _ = std::fs::remove_dir_all(k);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
