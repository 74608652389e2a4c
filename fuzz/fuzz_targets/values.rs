//! Values parsing on arbitrary input: YAML (values files and single documents), the YAML and
//! JSON emitters on whatever was read, and Helm's `--set` syntax. Must never panic or hang.
#![no_main]

use gotemplate::Map;
use helm::strvals::{self, Typing};
use goyaml as yaml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let _ = yaml::values_from_yaml_bytes(input);
    if let Ok(value) = yaml::from_yaml_bytes(input) {
        let _ = yaml::to_yaml(&value);
        let _ = yaml::to_json(&value);
    }
    let _ = yaml::documents(&String::from_utf8_lossy(input));
    if let Ok(text) = std::str::from_utf8(input) {
        let dest = Map::new();
        let _ = strvals::parse_into(text, &dest, Typing::Inferred);
        let _ = strvals::parse_into(text, &Map::new(), Typing::Strings);
        let _ = yaml::to_yaml(&gotemplate::Value::Map(dest));
    }
});
