use std::process::Output;

/// A finished command's status and output, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(out),
        stderr(out)
    )
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Fails the test, showing everything the command said, unless it succeeded.
#[track_caller]
pub fn succeeded(out: &Output) {
    assert!(out.status.success(), "{}", text(out));
}

#[cfg(all(test, unix))]
mod tests {
    use std::process::Command;

    #[test]
    fn text_shows_status_and_both_streams() {
        let out = Command::new("sh")
            .args(["-c", "echo out; echo err >&2; exit 3"])
            .output()
            .unwrap();
        assert_eq!(
            super::text(&out),
            "status exit status: 3\nstdout:\nout\n\nstderr:\nerr\n"
        );
        let failed = std::panic::catch_unwind(|| super::succeeded(&out));
        assert!(failed.is_err(), "a failed command passed");
    }
}
