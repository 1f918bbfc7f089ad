//! JSON text read into serde_json's [`Value`], refusing an object that names a key twice.
//! Uses: serde, serde_json; used by: program_json.
//!
//! serde_json's own `Value` keeps the last of two equal keys silently, so a program with
//! `"bytes": 64, "bytes": 128` was planned with 128 bytes and no word said. RFC 8259 leaves
//! such an object's meaning to the reader; ours refuses it, naming the key, with the line and
//! column serde_json gives every error.

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as one JSON value (as `serde_json::from_str::<Value>` does) and refuses an
/// object with a key twice.
///
/// # Errors
/// serde_json's error, with its line and column: a syntax error, or `duplicate key `K``
/// at the second `K`.
///
/// ```
/// use dramalloc_sim::input::strict_json::parse;
/// assert_eq!(parse(r#"{"a": [1, {"b": null}]}"#).unwrap()["a"][1]["b"], serde_json::Value::Null);
/// let e = parse("{\"a\": 1,\n \"a\": 2}").unwrap_err();
/// assert_eq!((e.to_string(), e.line(), e.column()), ("duplicate key `a` at line 2 column 4".to_owned(), 2, 4));
/// ```
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// A [`Value`] whose objects name each key once.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

/// Builds the [`Value`] as serde_json's own visitor does, checking each object's keys.
struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(A::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let Strict(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::Value;

    #[test]
    fn values_are_serde_json_s_and_a_key_twice_is_refused_where_it_repeats() {
        let text = r#"{"n": -3, "u": 18446744073709551615, "f": 1.5, "s": "x\u0041", "t": true,
            "z": null, "a": [], "o": {}}"#;
        assert_eq!(parse(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
        let e = parse(r#"{"t": [{"k": 1, "j": {"k": 2}, "k": 3}]}"#).unwrap_err();
        assert_eq!(
            (e.to_string().as_str(), e.line(), e.column()),
            ("duplicate key `k` at line 1 column 34", 1, 34)
        );
        // the same key in two objects is not a repeat
        assert!(parse(r#"[{"k": 1}, {"k": 2}]"#).is_ok());
        assert_eq!(parse("[1,").unwrap_err().to_string(), "EOF while parsing a value at line 1 column 3");
    }
}
