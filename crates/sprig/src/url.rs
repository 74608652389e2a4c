//! Sprig's `urlParse` and `urlJoin`, over the port of Go's `net/url` in [`gourl`].

use gotemplate::{ArgType, FuncError, FuncMap, Map, Value};

use gourl::{Url, hostname, parse, user_string};

use super::{def, s};

/// Sprig's `dictGetOrEmpty`.
fn dict_str(d: &Map, key: &str) -> Result<String, FuncError> {
    match d.get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(other) => Err(FuncError::new(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            crate::go_kind(&other)
        ))),
    }
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "urlParse",
        &[ArgType::String],
        None,
        "map[string]interface {}",
        false,
        |_, a| {
            let u =
                parse(s(&a, 0)).map_err(|e| FuncError::new(format!("unable to parse url: {e}")))?;
            let out = Map::new();
            out.insert("scheme", Value::from(u.scheme.clone()));
            out.insert("host", Value::from(u.host.clone()));
            out.insert("hostname", Value::from(hostname(&u.host)));
            out.insert("path", Value::from(u.path.clone()));
            out.insert("query", Value::from(u.raw_query.clone()));
            out.insert("opaque", Value::from(u.opaque.clone()));
            out.insert("fragment", Value::from(u.fragment.clone()));
            out.insert(
                "userinfo",
                Value::from(u.user.as_ref().map(user_string).unwrap_or_default()),
            );
            Ok(Value::Map(out))
        },
    );
    def(
        map,
        "urlJoin",
        &[ArgType::Map],
        None,
        "string",
        false,
        |_, a| {
            let d = a[0].as_map().cloned().unwrap_or_default();
            let mut u = Url {
                scheme: dict_str(&d, "scheme")?,
                host: dict_str(&d, "host")?,
                path: dict_str(&d, "path")?,
                raw_query: dict_str(&d, "query")?,
                opaque: dict_str(&d, "opaque")?,
                fragment: dict_str(&d, "fragment")?,
                ..Url::default()
            };
            let info = dict_str(&d, "userinfo")?;
            if !info.is_empty() {
                let tmp = parse(&format!("proto://{info}@host")).map_err(|e| {
                    FuncError::new(format!("unable to parse userinfo in dict: {e}"))
                })?;
                u.user = tmp.user;
            }
            Ok(Value::from(u.to_string()))
        },
    );
}
