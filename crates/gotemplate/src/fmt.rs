//! Go's `fmt` as templates use it: `Sprint`, `Sprintln`, `Sprintf` with Go's verbs, flags, widths
//! and mistakes (`%!d(string=x)`), and `%v` printing of every value.

use crate::value::Value;

/// `fmt.Sprint(args...)`: spaces between operands when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let _ = args;
    String::new()
}

/// `fmt.Sprintln(args...)`: always spaces between operands, and a trailing newline.
pub fn sprintln(args: &[Value]) -> String {
    let _ = args;
    String::new()
}

/// `fmt.Sprintf(format, args...)`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let _ = (format, args);
    String::new()
}

/// How `{{ value }}` prints: `fmt.Fprint` of the value (`<no value>` for no value).
pub fn print_value(value: &Value) -> String {
    let _ = value;
    String::new()
}
