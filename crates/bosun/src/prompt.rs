//! Asking before changing a cluster: a yes/no question on the terminal. Without a terminal
//! there is nobody to ask, so the answer is no, with the flag that skips the question named.

use std::io::{BufRead, IsTerminal, Write};

use crate::mesh::MeshFailure;

/// Asks `question` (it ends with `(y/N)`) and succeeds only on `y`/`yes`. `action` names what
/// is being confirmed (`install`, `uninstall`) in the refusal when stdin is not a terminal.
pub fn confirm(action: &str, question: &str) -> Result<(), MeshFailure> {
    if ask(action, question)? {
        Ok(())
    } else {
        Err(MeshFailure("cancelled".to_string()))
    }
}

/// Asks `question`; `true` only on `y`/`yes`. Without a terminal to ask on, an error naming
/// the flag that skips the question.
pub fn ask(action: &str, question: &str) -> Result<bool, MeshFailure> {
    if !std::io::stdin().is_terminal() {
        return Err(MeshFailure(format!(
            "stdin is not a terminal, so the {action} cannot be confirmed; pass -y (--skip-confirmation) to {action} without asking"
        )));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{} ", question.trim_end());
    let _ = stdout.flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| MeshFailure(format!("reading the answer: {e}")))?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// [`confirm`], asked from tokio's blocking pool while `runtime` runs: what the runtime does
/// meanwhile goes on (the install lock's renewal, which a question asked outside the runtime
/// would stop until the answer; the Lease would expire under a user who thinks for 15 s).
pub fn confirm_in(
    runtime: &tokio::runtime::Runtime,
    action: &'static str,
    question: String,
) -> Result<(), MeshFailure> {
    let asking = runtime.spawn_blocking(move || confirm(action, &question));
    runtime
        .block_on(asking)
        .map_err(|e| MeshFailure(format!("asking to confirm the {action}: {e}")))?
}
