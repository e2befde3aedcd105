//! A tiny JSON writer: the CLI contract wants every number with 17 significant digits, which
//! general-purpose serializers (shortest round-trip) do not print.

use depthprod::{AsymptoticTerm, Bounds, Divergence, Enclosure};
use std::fmt::Write;

/// A JSON value under construction.
#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Integer(u64),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    /// Serializes to a single line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(x) => out.push_str(&number(*x)),
            Json::Integer(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Text(s) => quote(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    quote(k, out);
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// 17 significant digits; non-finite values become `null` (JSON has no infinity).
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "null".into();
    }
    if x == 0.0 {
        return "0.0000000000000000".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if (-5..17).contains(&exp) {
        let decimals = (16 - exp).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.16e}")
    }
}

fn quote(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

pub fn enclosure(e: &Enclosure) -> Json {
    Json::Object(vec![
        ("value", Json::Number(e.value)),
        ("lo", Json::Number(e.lo)),
        ("hi", Json::Number(e.hi)),
    ])
}

pub fn bounds(b: &Bounds) -> Json {
    Json::Object(vec![("lo", Json::Number(b.lo)), ("hi", Json::Number(b.hi))])
}

pub fn term(t: &AsymptoticTerm) -> Json {
    Json::Object(vec![
        ("coefficient", Json::Number(t.coefficient)),
        ("exponent", Json::Number(t.exponent)),
        ("log", Json::Bool(t.log)),
        ("log_like", Json::Bool(t.log_like)),
    ])
}

pub fn divergence(d: &Divergence) -> Json {
    Json::Object(vec![
        ("terms", Json::Array(d.terms.iter().map(term).collect())),
        (
            "constant",
            d.constant.as_ref().map_or(Json::Null, enclosure),
        ),
    ])
}

pub fn optional<T>(x: Option<&T>, f: impl Fn(&T) -> Json) -> Json {
    x.map_or(Json::Null, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seventeen_digits() {
        assert_eq!(number(2004.444072582522), "2004.4440725825220");
        assert_eq!(number(2.778491204177493), "2.7784912041774930");
        assert_eq!(number(1e-9), "1.0000000000000001e-9");
        assert_eq!(number(f64::INFINITY), "null");
        assert_eq!(Json::Text("a\"b\n".into()).render(), "\"a\\\"b\\n\"");
    }
}
