//! Printing of what the Go-generated tables cannot express: no value, objects, funcs, pointers,
//! and the strconv helpers on their own.

use std::rc::Rc;

use gotemplate::fmt::{
    can_backquote, format_float, is_print, print_value, quote, quote_rune, quote_to_ascii, sprint,
    sprintf,
};
use gotemplate::{ArgType, Func, FuncMap, List, Map, Object, Value};

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
    ) -> Result<String, gotemplate::FuncError> {
        Err("no templates".into())
    }
}
