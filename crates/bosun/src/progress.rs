//! Install progress as people watch it: one line per component. On a terminal each line has a
//! spinner while the component is applied or waited for, says which workload it waits for and
//! why, and ends with a check mark (or a cross and the reason); the lines are redrawn in place.
//! Elsewhere (a pipe, a CI log) only the final line of each component is printed, once.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use cluster::{ApplyReport, InstallEvent, Outcome};

const SPINNER: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    /// Waiting for the components it is installed after.
    Queued,
    Applying,
    Waiting(String),
    Installed(String),
    Failed(String),
    Skipped(String),
}

impl Status {
    fn finished(&self) -> bool {
        matches!(
            self,
            Status::Installed(_) | Status::Failed(_) | Status::Skipped(_)
        )
    }
}

struct State {
    names: Vec<String>,
    statuses: Vec<Status>,
    /// How many lines the last redraw wrote (to move the cursor back over them).
    drawn: usize,
    frame: usize,
}

/// The progress display of one install.
pub struct InstallProgress {
    terminal: bool,
    state: Mutex<State>,
}

/// `3 created, 1 configured, 0 unchanged`.
pub fn counts(report: &ApplyReport) -> String {
    format!(
        "{} created, {} configured, {} unchanged",
        report.count(Outcome::Created),
        report.count(Outcome::Configured),
        report.count(Outcome::Unchanged)
    )
}

/// The terminal's width, or a safe guess; lines are cut to it so that a redraw can count them.
fn terminal_width() -> usize {
    // SAFETY: TIOCGWINSZ writes a `winsize` into the struct handed over, nothing else.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        size.ws_col as usize
    } else {
        80
    }
}

fn cut(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let mut out: String = line.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

impl InstallProgress {
    /// A display for components with these display names, in install order.
    pub fn new(names: Vec<String>) -> InstallProgress {
        let statuses = vec![Status::Queued; names.len()];
        InstallProgress {
            terminal: std::io::stdout().is_terminal(),
            state: Mutex::new(State {
                names,
                statuses,
                drawn: 0,
                frame: 0,
            }),
        }
    }

    /// Records what the install said about component `index`, and shows it.
    pub fn event(&self, index: usize, event: InstallEvent<'_>) {
        let status = match event {
            InstallEvent::Applying => Status::Applying,
            InstallEvent::Waiting(not_ready) => {
                let mut why = match not_ready.first() {
                    Some((object, why)) => format!("waiting for {object}: {why}"),
                    None => "waiting".to_string(),
                };
                if not_ready.len() > 1 {
                    why.push_str(&format!(" (and {} more)", not_ready.len() - 1));
                }
                Status::Waiting(why)
            }
            InstallEvent::Installed(report) => Status::Installed(counts(&report.report)),
            InstallEvent::Failed(error) => {
                // The error often names the component already (`Istiod: 1 workload not …`).
                let name = self.state.lock().expect("progress state").names[index].clone();
                let text = error.to_string();
                Status::Failed(
                    text.strip_prefix(&format!("{name}: "))
                        .unwrap_or(&text)
                        .to_string(),
                )
            }
            InstallEvent::Skipped { because } => {
                Status::Skipped(format!("skipped because {because} failed"))
            }
        };
        let mut state = self.state.lock().expect("progress state");
        let Some(slot) = state.statuses.get_mut(index) else {
            return;
        };
        let newly_finished = status.finished() && !slot.finished();
        *slot = status;
        if self.terminal {
            self.redraw(&mut state);
        } else if newly_finished {
            let line = Self::line(&state, index, None);
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{line}");
        }
    }

    /// Advances the spinners (on a terminal; elsewhere nothing moves).
    pub fn tick(&self) {
        if !self.terminal {
            return;
        }
        let mut state = self.state.lock().expect("progress state");
        state.frame = state.frame.wrapping_add(1);
        self.redraw(&mut state);
    }

    fn line(state: &State, index: usize, spinner: Option<char>) -> String {
        let name = &state.names[index];
        let spin = spinner.unwrap_or('-');
        match &state.statuses[index] {
            Status::Queued => format!("  {name}: queued behind its dependencies"),
            Status::Applying => format!("{spin} {name}: applying"),
            Status::Waiting(why) => format!("{spin} {name}: {why}"),
            Status::Installed(counts) => format!("✔ {name} installed ({counts})"),
            Status::Failed(why) => format!("✘ {name} failed: {why}"),
            Status::Skipped(why) => format!("✘ {name} {why}"),
        }
    }

    fn redraw(&self, state: &mut State) {
        let width = terminal_width();
        let spinner = SPINNER[state.frame % SPINNER.len()];
        let mut out = String::new();
        if state.drawn > 0 {
            out.push_str(&format!("\x1b[{}A", state.drawn));
        }
        for i in 0..state.names.len() {
            // A failure's text may have several lines; on a terminal they are joined into one
            // (cut to the width) so that the redraw can count lines; the whole error is
            // printed at the end.
            let line = Self::line(state, i, Some(spinner));
            let joined: Vec<&str> = line.lines().map(str::trim).collect();
            out.push_str("\x1b[2K");
            out.push_str(&cut(&joined.join(" "), width));
            out.push('\n');
        }
        state.drawn = state.names.len();
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_to_the_width() {
        assert_eq!(cut("abcdef", 10), "abcdef");
        assert_eq!(cut("abcdef", 4), "abc…");
    }

    #[test]
    fn lines_say_what_each_component_does() {
        let progress = InstallProgress {
            terminal: false,
            state: Mutex::new(State {
                names: vec!["Istiod".into(), "Ingress gateways".into()],
                statuses: vec![
                    Status::Waiting(
                        "waiting for Deployment istio-system/istiod: 0/1 replicas ready".into(),
                    ),
                    Status::Queued,
                ],
                drawn: 0,
                frame: 0,
            }),
        };
        let state = progress.state.lock().unwrap();
        assert_eq!(
            InstallProgress::line(&state, 0, Some('⠋')),
            "⠋ Istiod: waiting for Deployment istio-system/istiod: 0/1 replicas ready"
        );
        assert_eq!(
            InstallProgress::line(&state, 1, None),
            "  Ingress gateways: queued behind its dependencies"
        );
    }
}
