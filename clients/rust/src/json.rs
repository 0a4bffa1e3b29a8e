//! The protocol's JSON: a reader for one request line and a writer for one reply line. Requests are
//! small objects (integers, strings, an array of integers, the options object), so a plain recursive
//! parser serves; Debian vendors no serde.

use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer that fits i64; other numbers are kept as Float.
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

impl Value {
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(key),
            _ => None,
        }
    }
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parses one complete JSON text.
pub fn parse(s: &str) -> Result<Value, String> {
    let mut p = Parser { b: s.as_bytes(), i: 0, depth: 0 };
    let v = p.value()?;
    p.ws();
    if p.i != p.b.len() {
        return Err(format!("unexpected {} at byte {}", p.what(), p.i));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

const MAX_DEPTH: usize = 64;

impl<'a> Parser<'a> {
    fn what(&self) -> String {
        match self.b.get(self.i) {
            Some(c) => format!("{:?}", *c as char),
            None => "end of input".into(),
        }
    }
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?}, got {} at byte {}", c as char, self.what(), self.i))
        }
    }
    fn lit(&mut self, word: &str, v: Value) -> Result<Value, String> {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("unexpected {} at byte {}", self.what(), self.i))
        }
    }
    fn value(&mut self) -> Result<Value, String> {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.lit("true", Value::Bool(true)),
            Some(b'f') => self.lit("false", Value::Bool(false)),
            Some(b'n') => self.lit("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(format!("unexpected {} at byte {}", self.what(), self.i)),
        }
    }
    fn nested(&mut self, f: fn(&mut Self) -> Result<Value, String>) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested deeper than {}", MAX_DEPTH));
        }
        let v = f(self);
        self.depth -= 1;
        v
    }
    /// Reads an object's or an array's items, from its opening byte to `close`: item reads one (white
    /// space before it included), then a ',' or `close` must follow.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Result<(), String>) -> Result<(), String> {
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(&c) if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected ',' or '{}', got {} at byte {}", close as char, self.what(), self.i)),
            }
        }
    }
    fn object(&mut self) -> Result<Value, String> {
        let mut m = BTreeMap::new();
        self.items(b'}', |p| {
            p.ws();
            if p.b.get(p.i) != Some(&b'"') {
                return Err(format!("expected a key, got {} at byte {}", p.what(), p.i));
            }
            let k = p.string()?;
            p.expect(b':')?;
            m.insert(k, p.value()?);
            Ok(())
        })?;
        Ok(Value::Object(m))
    }
    fn array(&mut self) -> Result<Value, String> {
        let mut a = Vec::new();
        self.items(b']', |p| {
            a.push(p.value()?);
            Ok(())
        })?;
        Ok(Value::Array(a))
    }
    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
        let s = std::str::from_utf8(&self.b[start..self.i]).unwrap();
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        s.parse::<f64>().map(Value::Float).map_err(|_| format!("bad number {:?} at byte {}", s, start))
    }
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.b.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|_| "string is not UTF-8".into());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = *self.b.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match c {
                        b'"' | b'\\' | b'/' => out.push(c),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xd800..0xdc00).contains(&cp) && self.b[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo.wrapping_sub(0xdc00) & 0x3ff);
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(format!("bad escape \\{} at byte {}", c as char, self.i - 1)),
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.b.get(self.i..self.i + 4).ok_or("short \\u escape")?;
        let s = std::str::from_utf8(h).map_err(|_| "bad \\u escape")?;
        self.i += 4;
        u32::from_str_radix(s, 16).map_err(|_| format!("bad \\u escape {:?}", s))
    }
}

/// A reply under construction: fields are appended in order to one JSON object.
pub struct Obj {
    s: String,
    first: bool,
}

impl Obj {
    pub fn new() -> Obj {
        Obj { s: String::from("{"), first: true }
    }
    fn key(&mut self, k: &str) {
        if !self.first {
            self.s.push(',');
        }
        self.first = false;
        quote(&mut self.s, k);
        self.s.push(':');
    }
    pub fn int(mut self, k: &str, v: i64) -> Obj {
        self.key(k);
        write!(self.s, "{}", v).unwrap();
        self
    }
    pub fn str(mut self, k: &str, v: &str) -> Obj {
        self.key(k);
        quote(&mut self.s, v);
        self
    }
    pub fn bool(mut self, k: &str, v: bool) -> Obj {
        self.key(k);
        self.s.push_str(if v { "true" } else { "false" });
        self
    }
    pub fn strs(self, k: &str, v: &[&str]) -> Obj {
        self.list(k, v, |s, x| quote(s, x))
    }
    pub fn ints(self, k: &str, v: &[i64]) -> Obj {
        self.list(k, v, |s, x| write!(s, "{}", x).unwrap())
    }
    fn list<T>(mut self, k: &str, v: &[T], put: impl Fn(&mut String, &T)) -> Obj {
        self.key(k);
        self.s.push('[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                self.s.push(',');
            }
            put(&mut self.s, x);
        }
        self.s.push(']');
        self
    }
    /// A field whose value is already JSON (an object or an array of objects built here).
    pub fn raw(mut self, k: &str, json: &str) -> Obj {
        self.key(k);
        self.s.push_str(json);
        self
    }
    pub fn end(mut self) -> String {
        self.s.push('}');
        self.s
    }
}

pub fn quote(s: &mut String, v: &str) {
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => write!(s, "\\u{:04x}", c as u32).unwrap(),
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_requests() {
        let v = parse(r#"{"id":6,"op":"lookup","keys":[0,17,5],"options":{"map_size":1073741824,"x":"a\"\u00e9"}}"#).unwrap();
        assert_eq!(v.get("id").and_then(Value::as_int), Some(6));
        assert_eq!(v.get("op").and_then(Value::as_str), Some("lookup"));
        assert_eq!(v.get("keys"), Some(&Value::Array(vec![Value::Int(0), Value::Int(17), Value::Int(5)])));
        let o = v.get("options").unwrap();
        assert_eq!(o.get("map_size").and_then(Value::as_int), Some(1 << 30));
        assert_eq!(o.get("x").and_then(Value::as_str), Some("a\"é"));
        assert_eq!(parse(" [1.5, -2, true, null] ").unwrap(),
                   Value::Array(vec![Value::Float(1.5), Value::Int(-2), Value::Bool(true), Value::Null]));
    }

    #[test]
    fn refuses_broken_input() {
        for bad in [r#"{"id": 1, "op": "scan", "rows": "#, "{", "[1,]", r#"{"a" 1}"#, "{} x", "\"abc", "tru", ""] {
            assert!(parse(bad).is_err(), "{:?} parsed", bad);
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&deep).is_err());
        // each container names its own closing byte
        assert_eq!(parse("[1 2]"), Err("expected ',' or ']', got '2' at byte 3".into()));
        assert_eq!(parse(r#"{"a":1 "b":2}"#), Err("expected ',' or '}', got '\"' at byte 7".into()));
        assert_eq!(parse("{1:2}"), Err("expected a key, got '1' at byte 1".into()));
        assert_eq!(parse("{ }").unwrap(), Value::Object(BTreeMap::new()));
        assert_eq!(parse("[ ]").unwrap(), Value::Array(vec![]));
    }

    #[test]
    fn writes_replies() {
        let s = Obj::new().int("id", 3).str("e", "a\"b\n\u{1}").strs("w", &["x", "y"]).ints("l", &[1, -2]).bool("t", true).raw("o", "{}").end();
        assert_eq!(s, r#"{"id":3,"e":"a\"b\n\u0001","w":["x","y"],"l":[1,-2],"t":true,"o":{}}"#);
        assert_eq!(parse(&s).unwrap().get("e").and_then(Value::as_str), Some("a\"b\n\u{1}"));
    }
}
