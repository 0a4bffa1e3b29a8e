//! RowSum (docs/protocol.md): the checksum every target folds each decoded row into.

const M: u64 = 0x9e37_79b9_7f4a_7c15;

#[inline(always)]
fn le64(w: &[u8]) -> u64 {
    u64::from_le_bytes(w.try_into().unwrap())
}

#[inline(always)]
fn fold(mut h: u64, s: &[u8]) -> u64 {
    let n = s.len();
    if n < 8 {
        let mut v = 0u64;
        for (i, &b) in s.iter().enumerate() {
            v |= (b as u64) << (8 * i);
        }
        return (h ^ v).wrapping_mul(M);
    }
    // every full word except the last: those starting before n-8 (one bounds check for all of them)
    let words = (n - 8 + 7) / 8;
    for w in s[..8 * words].chunks_exact(8) {
        h = (h ^ le64(w)).wrapping_mul(M);
    }
    (h ^ le64(&s[n - 8..])).wrapping_mul(M)
}

#[inline]
pub fn rowsum(email: &[u8], name: &[u8], age: u8) -> u64 {
    let mut h = ((email.len() as u64) << 40) ^ ((name.len() as u64) << 32) ^ age as u64;
    h = fold(h, email);
    h = fold(h, name);
    h = h.wrapping_mul(M);
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::rowsum;
    use crate::json;
    use std::path::PathBuf;

    #[test]
    fn vectors() {
        // dataset/testdata/vectors.json, which every client's tests read
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../dataset/testdata/vectors.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let v = json::parse(&text).unwrap();
        let rows = match v.get("rowsum") {
            Some(json::Value::Array(a)) => a.clone(),
            _ => panic!("no rowsum vectors in {}", path.display()),
        };
        assert!(rows.len() >= 6);
        for r in rows {
            let email = r.get("email").and_then(json::Value::as_str).unwrap();
            let name = r.get("name").and_then(json::Value::as_str).unwrap();
            let age = r.get("age").and_then(json::Value::as_int).unwrap();
            let want = r.get("sum").and_then(json::Value::as_str).unwrap();
            let got = format!("{:016x}", rowsum(email.as_bytes(), name.as_bytes(), age as u8));
            assert_eq!(got, want, "{:?} {:?} {}", email, name, age);
        }
    }
}
