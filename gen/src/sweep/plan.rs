//! The points of a sweep: `--vary FIELD=V1,V2,...` lists, their cartesian product over a base
//! configuration, and `--shard K/N`.
//!
//! Fields are set generically: the base configuration is serialized to a TOML table, the
//! varied fields are replaced, and the table is deserialized back and validated, so that any
//! field of [`GpuConfig`] can be varied and every point gets the configuration's own checks.
//! All varied fields of a point are set before it is validated (a value that is only valid
//! together with another varied value is accepted).

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, bail, Result};
use warpforge_config::GpuConfig;

/// One `--vary FIELD=V1,V2,...`, as given (values not yet checked against the field).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vary {
    pub field: String,
    pub values: Vec<String>,
}

const VARY_EXAMPLE: &str = "e.g. --vary lanes=4,8,16";

impl FromStr for Vary {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        let Some((field, values)) = s.split_once('=') else {
            bail!("--vary {s}: expected FIELD=V1,V2,... ({VARY_EXAMPLE})");
        };
        let field = field.trim();
        if field.is_empty() {
            bail!("--vary {s}: the field name is missing before `=` ({VARY_EXAMPLE})");
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            bail!(
                "--vary {s}: an empty value in the list of `{field}` (a comma too many, or no value); separate the values by single commas ({VARY_EXAMPLE})"
            );
        }
        Ok(Vary {
            field: field.to_string(),
            values,
        })
    }
}

/// One varied field with its values, checked against the configuration's type of the field.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub field: String,
    /// The values as the configuration takes them.
    pub values: Vec<toml::Value>,
    /// The same, as text (point ids, tables, plots).
    pub labels: Vec<String>,
}

/// A value as a point's id shows it (strings without quotes).
pub fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The fields of a configuration that can be varied (every field but its name).
pub fn fields(base: &GpuConfig) -> Vec<String> {
    toml::Table::try_from(base)
        .expect("a configuration serializes")
        .keys()
        .filter(|k| *k != "name")
        .cloned()
        .collect()
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Parse `text` as a value of the field whose value in the base is `like`.
fn parse_value(field: &str, text: &str, like: &toml::Value) -> Result<toml::Value, String> {
    let v = match like {
        toml::Value::Integer(_) => text.parse::<i64>().map(toml::Value::Integer).map_err(|_| {
            format!("`{text}` is not a whole number (`{field}` takes one, e.g. {like})")
        })?,
        toml::Value::Float(_) => text
            .parse::<f64>()
            .map(toml::Value::Float)
            .map_err(|_| format!("`{text}` is not a number (`{field}` takes one, e.g. {like})"))?,
        toml::Value::Boolean(_) => text
            .parse::<bool>()
            .map(toml::Value::Boolean)
            .map_err(|_| format!("`{text}` is not true or false (`{field}` takes one)"))?,
        toml::Value::String(_) => toml::Value::String(text.to_string()),
        other => {
            return Err(format!(
                "`{field}` is a {} and cannot be varied",
                other.type_str()
            ))
        }
    };
    Ok(v)
}

/// Check the `--vary` lists against the base configuration: known fields, each given once,
/// each value of the field's type and range on its own. Combinations are checked per point
/// ([`points`]).
pub fn axes(base: &GpuConfig, vary: &[Vary]) -> Result<Vec<Axis>> {
    let table = toml::Table::try_from(base).expect("a configuration serializes");
    let known = fields(base);
    let mut out: Vec<Axis> = Vec::new();
    for v in vary {
        let given = format!("--vary {}={}", v.field, v.values.join(","));
        if v.field == "name" {
            bail!(
                "{given}: `name` is the configuration's label, not a parameter; vary one of: {}",
                known.join(", ")
            );
        }
        let Some(like) = table.get(&v.field) else {
            let near = known
                .iter()
                .map(|k| (distance(k, &v.field), k))
                .filter(|(d, _)| *d <= 2)
                .min();
            bail!(
                "{given}: unknown configuration field `{}`{}; fields are: {} (`warpforge config show` prints them with their values)",
                v.field,
                near.map(|(_, k)| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default(),
                known.join(", ")
            );
        };
        if out.iter().any(|a| a.field == v.field) {
            bail!(
                "--vary {} is given twice: give all its values in one list, e.g. --vary {}=4,8,16",
                v.field,
                v.field
            );
        }
        let mut values: Vec<toml::Value> = Vec::new();
        for text in &v.values {
            let value = parse_value(&v.field, text, like).map_err(|e| anyhow!("{given}: {e}"))?;
            // The value alone over the base: its type and range for the field (serde's
            // message, e.g. the variants of an enum or "invalid value" for a negative number).
            let mut one = table.clone();
            one.insert(v.field.clone(), value.clone());
            if let Err(e) = toml::Value::Table(one).try_into::<GpuConfig>() {
                bail!(
                    "{given}: `{text}` is not a value of `{}`: {}",
                    v.field,
                    e.message().trim()
                );
            }
            if values.contains(&value) {
                bail!(
                    "{given}: `{text}` is listed twice (as {}); give each value once",
                    value_label(&value)
                );
            }
            values.push(value);
        }
        out.push(Axis {
            field: v.field.clone(),
            labels: values.iter().map(value_label).collect(),
            values,
        });
    }
    Ok(out)
}

/// One point of the product.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position in the product (the first `--vary` varies slowest).
    pub index: usize,
    /// `lanes=8,rf_banks=4,collectors=2`: the varied fields in `--vary` order.
    pub id: String,
    /// (field, value as text), in `--vary` order.
    pub params: Vec<(String, String)>,
    /// The point's configuration, or why it is not a valid one.
    pub config: Result<GpuConfig, String>,
}

/// How many points the product has.
pub fn product_len(axes: &[Axis]) -> usize {
    axes.iter().map(|a| a.values.len()).product()
}

/// The cartesian product of `axes` over `base`, in order (the last axis varies fastest). Every
/// point's configuration is validated with every varied field set.
pub fn points(base: &GpuConfig, axes: &[Axis]) -> Vec<Point> {
    let table = toml::Table::try_from(base).expect("a configuration serializes");
    let n = product_len(axes);
    (0..n)
        .map(|index| {
            let mut rest = index;
            let mut picks = vec![0usize; axes.len()];
            for (i, a) in axes.iter().enumerate().rev() {
                picks[i] = rest % a.values.len();
                rest /= a.values.len();
            }
            let mut t = table.clone();
            let mut params = Vec::new();
            for (a, &p) in axes.iter().zip(&picks) {
                t.insert(a.field.clone(), a.values[p].clone());
                params.push((a.field.clone(), a.labels[p].clone()));
            }
            let id = params
                .iter()
                .map(|(f, v)| format!("{f}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let config = toml::Value::Table(t)
                .try_into::<GpuConfig>()
                .map_err(|e| e.message().trim().to_string())
                .and_then(|c| c.validate().map(|()| c).map_err(|e| e.to_string()));
            Point {
                index,
                id,
                params,
                config,
            }
        })
        .collect()
}

/// `--shard K/N`: the points whose index is K-1 modulo N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, from 1.
    pub k: usize,
    /// N.
    pub n: usize,
}

impl FromStr for Shard {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        let fix = "give K/N with 1 <= K <= N: shard K of N, e.g. --shard 1/4 ... --shard 4/4";
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| anyhow!("--shard {s}: expected K/N ({fix})"))?;
        let num = |t: &str, what: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| anyhow!("--shard {s}: {what} `{t}` is not a whole number ({fix})"))
        };
        let (k, n) = (num(k, "K")?, num(n, "N")?);
        if n == 0 {
            bail!("--shard {s}: N must be at least 1 ({fix})");
        }
        if k == 0 || k > n {
            bail!("--shard {s}: K must be between 1 and N = {n} ({fix})");
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// Whether the point at `index` belongs to this shard.
    pub fn contains(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_levenshtein() {
        assert_eq!(distance("lanes", "lanes"), 0);
        assert_eq!(distance("lanez", "lanes"), 1);
        assert_eq!(distance("lane", "lanes"), 1);
        assert_eq!(distance("rfbanks", "rf_banks"), 1);
        assert_eq!(distance("", "abc"), 3);
    }

    #[test]
    fn value_labels_have_no_quotes() {
        assert_eq!(value_label(&toml::Value::Integer(8)), "8");
        assert_eq!(value_label(&toml::Value::String("gto".into())), "gto");
    }
}
