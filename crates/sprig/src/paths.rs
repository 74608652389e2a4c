//! Sprig's slash-path functions (Go's `path` package) and float helpers.

use gotemplate::{ArgType, FuncMap, IntKind, Value};

use super::conv::to_float64;
use super::{def, n, s};

/// Go's `path.Clean`.
pub fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

fn base(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

fn dir(path: &str) -> String {
    let cut = path.rfind('/').map_or(0, |i| i + 1);
    clean(&path[..cut])
}

fn ext(path: &str) -> String {
    for (i, c) in path.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return path[i..].to_string();
        }
    }
    String::new()
}

pub(super) fn register(map: &mut FuncMap) {
    const STR: ArgType = ArgType::String;
    const ANY: ArgType = ArgType::Any;
    // `path.*` and, on a Unix host, the identical `filepath.*` (`os*`).
    for (name, os_name) in [
        ("base", "osBase"),
        ("dir", "osDir"),
        ("clean", "osClean"),
        ("ext", "osExt"),
    ] {
        let f: fn(&str) -> String = match name {
            "base" => base,
            "dir" => dir,
            "clean" => clean,
            _ => ext,
        };
        for n in [name, os_name] {
            let mut func = gotemplate::Func::new(vec![STR], None, "string", move |_, a| {
                Ok(Value::from(f(s(&a, 0))))
            });
            func.returns_error = false;
            map.insert(n, func);
        }
    }
    for name in ["isAbs", "osIsAbs"] {
        def(map, name, &[STR], None, "bool", false, |_, a| {
            Ok(Value::Bool(s(&a, 0).starts_with('/')))
        });
    }
    def(map, "floor", &[ANY], None, "float64", false, |_, a| {
        Ok(Value::Float(to_float64(&a[0]).floor()))
    });
    def(map, "ceil", &[ANY], None, "float64", false, |_, a| {
        Ok(Value::Float(to_float64(&a[0]).ceil()))
    });
    def(
        map,
        "round",
        &[ANY, ArgType::Int(IntKind::Int)],
        Some(ArgType::Float64),
        "float64",
        false,
        |_, a| {
            let round_on = match a.get(2) {
                Some(Value::Float(f)) => *f,
                _ => 0.5,
            };
            let val = to_float64(&a[0]);
            let pow = 10f64.powf(n(&a, 1) as f64);
            let digit = pow * val;
            let frac = digit.fract();
            let r = if frac >= round_on {
                digit.ceil()
            } else {
                digit.floor()
            };
            Ok(Value::Float(r / pow))
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_like_go() {
        assert_eq!(clean("a//b/../c/."), "a/c");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("../../a"), "../../a");
        assert_eq!(clean(""), ".");
        assert_eq!(base("/a/b/"), "b");
        assert_eq!(base("///"), "/");
        assert_eq!(dir("a/b/c"), "a/b");
        assert_eq!(dir("c"), ".");
        assert_eq!(ext("a/b.tar.gz"), ".gz");
        assert_eq!(ext("a.b/c"), "");
    }
}
