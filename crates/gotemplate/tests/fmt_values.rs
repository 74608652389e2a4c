//! Printing of what the Go-generated tables cannot express: no value, objects, funcs, pointers,
//! and the strconv helpers on their own.

use std::rc::Rc;

use gotemplate::fmt::{
    can_backquote, format_float, is_print, print_value, quote, quote_rune, quote_to_ascii, sprint,
    sprintf,
};
use gotemplate::{ArgType, Field, Func, FuncMap, List, Map, Object, Value};

struct Caps;

impl Object for Caps {
    fn type_name(&self) -> &str {
        "*chartutil.Capabilities"
    }

    fn format(&self) -> String {
        "&{v1.20 []}".to_string()
    }

    fn len(&self) -> Option<usize> {
        Some(7)
    }
}

/// A named string type (Go's `type Name string`).
struct Named(&'static str);

impl Object for Named {
    fn type_name(&self) -> &str {
        "common.Name"
    }

    fn as_value(&self) -> Option<Value> {
        Some(Value::str(self.0))
    }
}

#[test]
fn print_value_of_no_value_and_nil() {
    assert_eq!(print_value(&Value::Invalid), "<no value>");
    assert_eq!(print_value(&Value::Nil), "<nil>");
    assert_eq!(
        print_value(&Value::list(vec![Value::Nil, Value::int(1)])),
        "[<nil> 1]"
    );
    assert_eq!(print_value(&Value::Float(1e6)), "1e+06");
    assert_eq!(print_value(&Value::str("x")), "x");
}

#[test]
fn objects_print_with_their_format_and_type() {
    let caps = Value::Object(Rc::new(Caps));
    assert_eq!(print_value(&caps), "&{v1.20 []}");
    assert_eq!(
        sprintf("%T", std::slice::from_ref(&caps)),
        "*chartutil.Capabilities"
    );
    assert_eq!(
        sprintf("%v|%s", &[caps.clone(), caps.clone()]),
        "&{v1.20 []}|&{v1.20 []}"
    );
    assert_eq!(
        print_value(&Value::list(vec![caps.clone()])),
        "[&{v1.20 []}]"
    );
    // A named string type prints as its string, and Sprint treats it as a string.
    let name = Value::Object(Rc::new(Named("n")));
    assert_eq!(sprintf("%q", std::slice::from_ref(&name)), "\"n\"");
    assert_eq!(sprint(&[name.clone(), Value::int(1), name]), "n1n");
}

#[test]
fn funcs_and_pointers_print_addresses() {
    let f = Value::Func(Rc::new(Func::new(
        vec![ArgType::String],
        None,
        "string",
        |_, a| Ok(a[0].clone()),
    )));
    assert!(print_value(&f).starts_with("0x"));
    assert_eq!(
        sprintf("%T", std::slice::from_ref(&f)),
        "func(string) (string, error)"
    );
    let m = Value::Map(Map::new());
    assert!(sprintf("%p", std::slice::from_ref(&m)).starts_with("0x"));
    assert!(
        sprintf("%#p", &[Value::List(List::new(vec![]))])
            .chars()
            .all(|c| c.is_ascii_hexdigit())
    );
    assert!(
        sprintf("%s", std::slice::from_ref(&f)).starts_with("%!s(func(string) (string, error)=0x")
    );
}

/// A struct with a tagged exported field and an unexported one, itself or through a pointer.
struct Pair {
    pointer: bool,
}

impl Object for Pair {
    fn type_name(&self) -> &str {
        if self.pointer {
            "*pkg.Pair"
        } else {
            "pkg.Pair"
        }
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(vec![
            Field {
                name: "Name",
                tag: r#"json:"name,omitempty" yaml:"n""#,
                value: Value::str("a"),
            },
            Field::new("count", Value::int(2)),
        ])
    }
}

/// A type with `String` and `GoString` methods (as `time.Time` has).
struct Clock;

impl Object for Clock {
    fn type_name(&self) -> &str {
        "pkg.Clock"
    }

    fn stringer(&self) -> Option<String> {
        Some("noon".to_string())
    }

    fn go_string(&self) -> Option<String> {
        Some("pkg.Noon()".to_string())
    }
}

/// A named slice type (Go's `type List []string`).
struct Names;

impl Object for Names {
    fn type_name(&self) -> &str {
        "pkg.Names"
    }

    fn as_value(&self) -> Option<Value> {
        Some(Value::List(List::typed(
            vec![Value::str("a"), Value::str("b")],
            "string",
        )))
    }
}

#[test]
fn structs_print_their_fields() {
    let pair = Value::Object(Rc::new(Pair { pointer: false }));
    assert_eq!(
        sprintf(
            "%v|%+v|%#v|%q",
            &[pair.clone(), pair.clone(), pair.clone(), pair]
        ),
        r#"{a 2}|{Name:a count:2}|pkg.Pair{Name:"a", count:2}|{"a" '\x02'}"#
    );
    let ptr = Value::Object(Rc::new(Pair { pointer: true }));
    assert_eq!(
        sprintf("%v|%+v|%#v", &[ptr.clone(), ptr.clone(), ptr.clone()]),
        r#"&{a 2}|&{Name:a count:2}|&pkg.Pair{Name:"a", count:2}"#
    );
    // Below the top level a pointer is its address.
    let nested = sprintf("%v", &[Value::list(vec![ptr.clone()])]);
    assert!(
        nested.starts_with("[0x") && nested.ends_with(']'),
        "{nested}"
    );
    let nested = sprintf("%#v", &[Value::list(vec![ptr.clone()])]);
    assert!(
        nested.starts_with("[]interface {}{(*pkg.Pair)(0x"),
        "{nested}"
    );
    assert!(sprintf("%p", std::slice::from_ref(&ptr)).starts_with("0x"));
    let value = Value::Object(Rc::new(Pair { pointer: false }));
    assert!(sprintf("%p", &[value]).starts_with("%!p(pkg.Pair="));
}

#[test]
fn stringers_and_go_stringers() {
    let c = Value::Object(Rc::new(Clock));
    let five = vec![c.clone(); 5];
    assert_eq!(
        sprintf("%v|%s|%q|%x|%6.3s", &five),
        r#"noon|noon|"noon"|6e6f6f6e|   noo"#
    );
    assert_eq!(sprintf("%#v", std::slice::from_ref(&c)), "pkg.Noon()");
    let m = Value::Map(Map::from_entries([("c", c.clone())]));
    assert_eq!(
        sprintf("%v|%#v", &[m.clone(), m]),
        r#"map[c:noon]|map[string]interface {}{"c":pkg.Noon()}"#
    );
    assert_eq!(print_value(&Value::list(vec![c.clone(), c])), "[noon noon]");
}

#[test]
fn named_slices_show_their_type_in_go_syntax() {
    let n = Value::Object(Rc::new(Names));
    assert_eq!(
        sprintf("%v|%#v", &[n.clone(), n]),
        r#"[a b]|pkg.Names{"a", "b"}"#
    );
}

#[test]
fn struct_tags_read_as_go_reads_them() {
    let field = |tag: &'static str| Field {
        name: "F",
        tag,
        value: Value::Nil,
    };
    let f = field(r#"json:"name,omitempty" yaml:"n""#);
    assert_eq!(f.tag_lookup("json").as_deref(), Some("name,omitempty"));
    assert_eq!(f.tag_lookup("yaml").as_deref(), Some("n"));
    assert_eq!(f.tag_lookup("toml"), None);
    assert_eq!(
        field(r#"a:"x\"y" b:"""#).tag_lookup("a").as_deref(),
        Some("x\"y")
    );
    assert_eq!(
        field(r#"a:"x\"y" b:"""#).tag_lookup("b").as_deref(),
        Some("")
    );
    // A malformed pair ends the lookup, even for keys after it.
    assert_eq!(field(r#"a:x b:"y""#).tag_lookup("b"), None);
    assert_eq!(field(r#"a:"unterminated"#).tag_lookup("a"), None);
    assert!(f.is_exported());
    assert!(!Field::new("count", Value::Nil).is_exported());
}

#[test]
fn named_map_types() {
    let m = Map::named("chartutil.Values");
    m.insert("a", Value::int(1));
    let v = Value::Map(m);
    assert_eq!(
        sprintf("%v %T", &[v.clone(), v.clone()]),
        "map[a:1] chartutil.Values"
    );
    assert_eq!(sprintf("%#v", &[v]), "chartutil.Values{\"a\":1}");
}

#[test]
fn strconv_helpers() {
    assert_eq!(format_float(1e21, 'g', -1), "1e+21");
    assert_eq!(format_float(123456.0, 'g', -1), "123456");
    assert_eq!(format_float(1.0, 'f', -1), "1");
    assert_eq!(format_float(1.25, 'f', 1), "1.2");
    assert_eq!(format_float(0.1, 'e', -1), "1e-01");
    assert_eq!(format_float(-0.0, 'g', -1), "-0");
    assert_eq!(format_float(1.5, 'b', -1), "6755399441055744p-52");
    assert_eq!(format_float(1.5, 'z', -1), "%z");
    assert_eq!(format_float(f64::NAN, 'f', 2), "NaN");
    assert_eq!(quote("a\u{7f}é\u{2028}"), "\"a\\x7fé\\u2028\"");
    assert_eq!(quote_to_ascii("é😀"), "\"\\u00e9\\U0001f600\"");
    assert_eq!(quote_rune(0xD800), "'�'");
    assert!(can_backquote("a\tb") && !can_backquote("a`b") && !can_backquote("\u{feff}"));
    assert!(is_print('é') && !is_print('\u{ad}') && is_print(' ') && !is_print('\u{a0}'));
}

#[test]
fn builtins_on_objects() {
    let funcs = FuncMap::builtins();
    let mut ctx = NoTemplates;
    let caps: Rc<dyn Object> = Rc::new(Caps);
    let call = |name: &str, args: Vec<Value>, ctx: &mut NoTemplates| {
        (funcs.get(name).unwrap().imp)(ctx, args)
    };
    let len = call("len", vec![Value::Object(caps.clone())], &mut ctx).unwrap();
    assert_eq!(print_value(&len), "7");
    let same = call(
        "eq",
        vec![Value::Object(caps.clone()), Value::Object(caps.clone())],
        &mut ctx,
    );
    assert_eq!(print_value(&same.unwrap()), "true");
    let other = call(
        "eq",
        vec![Value::Object(caps), Value::Object(Rc::new(Caps))],
        &mut ctx,
    );
    assert_eq!(print_value(&other.unwrap()), "false");
    let name = Value::Object(Rc::new(Named("abc")));
    let b = call("index", vec![name.clone(), Value::int(1)], &mut ctx).unwrap();
    assert_eq!(sprintf("%T %v", &[b.clone(), b]), "uint8 98");
    let eq = call("eq", vec![name, Value::str("abc")], &mut ctx).unwrap();
    assert_eq!(print_value(&eq), "true");
}

struct NoTemplates;

impl gotemplate::Context for NoTemplates {
    fn execute_template(&mut self, _: &str, _: Value) -> Result<String, gotemplate::FuncError> {
        Err("no templates".into())
    }

    fn execute_text(
        &mut self,
        _: &str,
        _: &str,
        _: Value,
    ) -> Result<String, gotemplate::TextError> {
        Err(gotemplate::TextError::Parse("no templates".into()))
    }
}
