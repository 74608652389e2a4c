//! `bosun completion SHELL`: each shell's script is printed, names every command `bosun
//! --help` lists, and is accepted by its shell's parser (bash always; zsh and fish where they
//! are installed). In bash it also completes a command name.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stdout, succeeded, text};

fn bosun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(args)
        .output()
        .expect("running bosun")
}

/// The commands `bosun --help` lists (the two-space-indented words of its `Commands:` part),
/// `help` aside: clap adds it and the scripts complete it too, but it is not ours to check.
fn commands() -> Vec<String> {
    let out = bosun(&["--help"]);
    succeeded(&out);
    let help = stdout(&out);
    let listed: Vec<String> = help
        .split_once("Commands:\n")
        .expect("a Commands: section")
        .1
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect();
    for known in ["install", "manifest", "operator", "version", "completion"] {
        assert!(
            listed.iter().any(|c| c == known),
            "{known} not in {listed:?}"
        );
    }
    listed
}

/// The script for `shell`, written to a file of the calling test's own (`test` names it).
fn script(shell: &str, test: &str) -> (String, PathBuf) {
    let out = bosun(&["completion", shell]);
    succeeded(&out);
    let script = stdout(&out);
    let path = std::env::temp_dir().join(format!(
        "bosun-completion-{}-{test}-{shell}",
        std::process::id()
    ));
    std::fs::write(&path, &script).unwrap();
    (script, path)
}

fn installed(shell: &str) -> bool {
    Command::new(shell)
        .args(["-c", "exit 0"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `shell ARGS SCRIPT` must accept the script; skipped (and said so) without the shell.
fn parses(shell: &str, args: &[&str], path: &Path) {
    if !installed(shell) {
        eprintln!("{shell} is not installed: its script's syntax is not checked");
        return;
    }
    let out = Command::new(shell).args(args).arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{shell} refused the script:\n{}",
        text(&out)
    );
}

#[test]
fn each_shell_gets_a_script_naming_every_command() {
    let commands = commands();
    // Each shell's parser in its no-execute mode, and how its script names a long flag.
    let shells: [(&str, &[&str], &str); 3] = [
        ("bash", &["-n"], "--manifests"),
        ("zsh", &["-n"], "--manifests"),
        ("fish", &["--no-execute"], "-l manifests"),
    ];
    for (shell, check, flag) in shells {
        let (script, path) = script(shell, "names");
        for command in &commands {
            assert!(
                script.contains(command.as_str()),
                "the {shell} script does not name `{command}`"
            );
        }
        // A nested command and a flag of one.
        for word in ["generate", flag] {
            assert!(script.contains(word), "the {shell} script lacks {word}");
        }
        parses(shell, check, &path);
        let _ = std::fs::remove_file(&path);
    }
    assert!(installed("bash"), "bash is needed for this test");
}

#[test]
fn bash_completes_a_command_name() {
    let (_, path) = script("bash", "completes");
    // What bash does on `bosun vers<TAB>`: the completion function with the words so far.
    let probe = format!(
        r#"source {}
COMP_WORDS=(bosun vers); COMP_CWORD=1; COMP_LINE="bosun vers"; COMP_POINT=${{#COMP_LINE}}
_bosun bosun vers bosun
printf '%s\n' "${{COMPREPLY[@]}}""#,
        path.display()
    );
    let out = Command::new("bash").args(["-c", &probe]).output().unwrap();
    let _ = std::fs::remove_file(&path);
    succeeded(&out);
    assert_eq!(
        stdout(&out).split_whitespace().collect::<Vec<_>>(),
        ["version"],
        "{}",
        text(&out)
    );
}

#[test]
fn unknown_shell_is_refused() {
    let out = bosun(&["completion", "tcsh"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(out.stdout.is_empty(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bash"),
        "the error lists the shells: {}",
        text(&out)
    );
}
