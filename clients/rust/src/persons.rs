//! The person file (docs/protocol.md, "The person file"): read once at open, then sliced. Every
//! offset is checked here, so a damaged file is one error at open, never a panic in a workload.

pub struct Persons {
    data: Vec<u8>,
    pub n: usize,
    pub seed: u64,
    pub checksum: u64,
    eoff: Vec<u32>,
    noff: Vec<u32>,
    /// Person indices in email byte order.
    pub sorted: Vec<u32>,
    ages: usize,
    emails: usize,
    names: usize,
}

const MAGIC: &[u8; 8] = b"DBBPERS1";

fn u32s(b: &[u8], at: usize, n: usize) -> Vec<u32> {
    b[at..at + 4 * n].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn u64at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

impl Persons {
    pub fn open(path: &str) -> Result<Persons, String> {
        let data = std::fs::read(path).map_err(|e| format!("read the person file {}: {}", path, e))?;
        Persons::parse(data).map_err(|e| format!("person file {}: {}", path, e))
    }

    pub fn parse(data: Vec<u8>) -> Result<Persons, String> {
        if data.len() < 64 || &data[..8] != MAGIC {
            return Err("not a person file (no DBBPERS1 header)".into());
        }
        let version = u32::from_le_bytes(data[8..12].try_into().unwrap());
        if version != 1 {
            return Err(format!("version {}, this client reads version 1", version));
        }
        let h = u32::from_le_bytes(data[12..16].try_into().unwrap()) as u64;
        let (n, seed, e, m, checksum) = (u64at(&data, 16), u64at(&data, 24), u64at(&data, 32), u64at(&data, 40), u64at(&data, 48));
        let want = (h as u128) + (e as u128) + (m as u128) + 13 * (n as u128) + 8;
        if h < 64 || n >= 1 << 31 || want != data.len() as u128 {
            return Err(format!("header says {} persons in {} bytes, the file has {}", n, want, data.len()));
        }
        let (h, n) = (h as usize, n as usize);
        let eoff = u32s(&data, h, n + 1);
        let noff = u32s(&data, h + 4 * (n + 1), n + 1);
        let sorted = u32s(&data, h + 8 * (n + 1), n);
        let ages = h + 8 * (n + 1) + 4 * n;
        let emails = ages + n;
        let names = emails + e as usize;
        for (what, off, total) in [("email", &eoff, e), ("name", &noff, m)] {
            if off[0] != 0 || off[n] as u64 != total || off.windows(2).any(|w| w[0] > w[1]) {
                return Err(format!("{} offsets are not ascending within {} bytes", what, total));
            }
        }
        if sorted.iter().any(|&i| i as usize >= n) {
            return Err("the sorted index names a person past the end".into());
        }
        Ok(Persons { data, n, seed, checksum, eoff, noff, sorted, ages, emails, names })
    }

    #[inline]
    pub fn email(&self, i: usize) -> &[u8] {
        &self.data[self.emails + self.eoff[i] as usize..self.emails + self.eoff[i + 1] as usize]
    }
    #[inline]
    pub fn name(&self, i: usize) -> &[u8] {
        &self.data[self.names + self.noff[i] as usize..self.names + self.noff[i + 1] as usize]
    }
    #[inline]
    pub fn age(&self, i: usize) -> u8 {
        self.data[self.ages + i]
    }

    /// Raw pointers for the C loops (the lmdb-c baseline's functions take the packed buffers).
    pub fn emails_ptr(&self) -> *const u8 {
        self.data[self.emails..].as_ptr()
    }
    pub fn names_ptr(&self) -> *const u8 {
        self.data[self.names..].as_ptr()
    }
    pub fn ages_ptr(&self) -> *const u8 {
        self.data[self.ages..].as_ptr()
    }
    pub fn eoff(&self) -> &[u32] {
        &self.eoff
    }
    pub fn noff(&self) -> &[u32] {
        &self.noff
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::rowsum::rowsum;
    use std::path::PathBuf;

    pub fn testfile() -> String {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../dataset/testdata/persons-1000-seed1.bin");
        p.to_str().unwrap().to_string()
    }

    #[test]
    fn reads_the_test_file() {
        let p = Persons::open(&testfile()).unwrap();
        assert_eq!((p.n, p.seed), (1000, 1));
        assert_eq!((p.email(0), p.name(0), p.age(0)), (&b"nina.dubois.0@inbox.test"[..], &b"Nina Dubois"[..], 90));
        let sum = |it: &mut dyn Iterator<Item = usize>| it.fold(0u64, |s, i| s.wrapping_add(rowsum(p.email(i), p.name(i), p.age(i))));
        assert_eq!(sum(&mut (0..1000)), 0x9a8d33d6f43e47cd);
        assert_eq!(sum(&mut (0..1000)), p.checksum);
        assert_eq!(sum(&mut (0..10)), 0xe27dc92647c5e680);
        assert_eq!(sum(&mut p.sorted[..10].iter().map(|&i| i as usize)), 0x2f9e6b50f7811139);
        // the Rust RowSum and the C baseline's agree on every person
        for i in 0..p.n {
            let (e, n) = (p.email(i), p.name(i));
            let c = unsafe { crate::cbase::dbb_rowsum(e.as_ptr(), e.len(), n.as_ptr(), n.len(), p.age(i) as i32) };
            assert_eq!(rowsum(e, n, p.age(i)), c, "person {}", i);
        }
    }

    #[test]
    fn refuses_damaged_files() {
        let good = std::fs::read(testfile()).unwrap();
        let mut cut = good.clone();
        cut.truncate(good.len() - 1);
        let mut magic = good.clone();
        magic[0] = b'X';
        let mut off = good.clone();
        off[64 + 4] = 0xff; // email offset 1 far past the emails
        let mut idx = good.clone();
        let at = 64 + 8 * 1001;
        idx[at..at + 4].copy_from_slice(&5000u32.to_le_bytes());
        for (what, b) in [("short", cut), ("magic", magic), ("offsets", off), ("sorted", idx), ("empty", vec![])] {
            assert!(Persons::parse(b).is_err(), "{} file accepted", what);
        }
    }
}
