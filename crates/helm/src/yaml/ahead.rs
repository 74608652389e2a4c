//! Preparing large YAML documents ahead of need, on a thread that would otherwise wait.
//!
//! Istio's base chart splits its 1 MB CRD file with `splitList` and reads each part with
//! `fromYaml`. Preparing a part for reading (finding its repeated blocks and the blocks already
//! written as `toYaml` writes them, `fast::prepare`) is most of that chart's work, and a pure
//! function of the part's text. So `splitList` offers its large parts here, and a helper (a job
//! of the render's helper thread, or a thread that has finished its own work) prepares them
//! from the last one back, while the render takes them from the first: a part already
//! prepared is taken, one being prepared is waited for, and one not started is prepared by the
//! render itself. Nothing is ever prepared twice, and what a render reads does not depend on
//! who prepared it.
//!
//! A render closes its [`Ahead`] when it ends: the parts it never read are dropped, and its
//! helpers stop.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::fast::{Prepared, prepare};

/// Parts shorter than this are not worth a thread's attention (`fromYaml` remembers nothing
/// shorter either).
const MIN_LEN: usize = 4096;

/// Documents offered for preparation during one render (cheap to clone: shared).
#[derive(Clone)]
pub struct Ahead(Arc<Shared>);

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// Where offers are prepared as jobs, when the render has a helper thread.
    worker: Option<cores::JobQueue>,
}

#[derive(Default)]
struct State {
    parts: Vec<Part>,
    closed: bool,
    /// Whether a job preparing the waiting parts is with the worker.
    job_queued: bool,
}

struct Part {
    text: Arc<str>,
    progress: Progress,
}

enum Progress {
    Waiting,
    Preparing,
    /// `None` when the fast reader does not take the text.
    Prepared(Option<Prepared>),
}

/// What [`Ahead::take`] found for a text.
pub(crate) enum Taken {
    /// Not offered, or not started: the caller prepares it.
    NotAhead,
    /// Prepared by a helper (`None`: the fast reader does not take the text).
    Prepared(Option<Prepared>),
}

impl Ahead {
    /// Parts are prepared only by threads that call [`Ahead::help_until_closed`].
    pub fn new() -> Ahead {
        Ahead::with(None)
    }

    /// Offers are also prepared as jobs of `worker` (the render's helper thread).
    pub fn with_worker(worker: cores::JobQueue) -> Ahead {
        Ahead::with(Some(worker))
    }

    fn with(worker: Option<cores::JobQueue>) -> Ahead {
        Ahead(Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            worker,
        }))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is changed by single assignments under the lock, so a thread that
        // panicked while holding it left nothing half-done.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Offers the large `parts` of a split text for preparation.
    pub fn offer<'t>(&self, parts: impl IntoIterator<Item = &'t str>) {
        let parts: Vec<&str> = parts.into_iter().filter(|p| p.len() >= MIN_LEN).collect();
        // Only the render offers and takes, so parts stay where they are put here.
        let first = {
            let state = self.lock();
            if parts.is_empty() || state.closed {
                return;
            }
            state.parts.len()
        };
        // Copied (the render's strings are not shared across threads) and published one at a
        // time from the last, which is where a helper starts, so that it starts at once; each
        // goes before the ones published after it, so they stay in the order they came.
        for part in parts.into_iter().rev() {
            let part = Part {
                text: Arc::from(part),
                progress: Progress::Waiting,
            };
            let mut state = self.lock();
            if state.closed {
                return;
            }
            state.parts.insert(first, part);
            drop(state);
            self.0.changed.notify_all();
            self.queue_job();
        }
    }

    /// With a worker, a job that prepares the waiting parts, unless one is queued already.
    fn queue_job(&self) {
        let Some(worker) = &self.0.worker else {
            return;
        };
        let mut state = self.lock();
        if state.job_queued || state.closed {
            return;
        }
        state.job_queued = true;
        drop(state);
        let ahead = self.clone();
        if !worker.run(move || ahead.help()) {
            self.lock().job_queued = false;
        }
    }

    /// The preparation of `text` if it was offered: taken when done, waited for when a helper
    /// is at it; a part not started is left to the caller (and to no helper after this).
    pub(crate) fn take(&self, text: &str) -> Taken {
        let mut state = self.lock();
        loop {
            let Some(i) = state
                .parts
                .iter()
                .position(|p| p.text.len() == text.len() && *p.text == *text)
            else {
                return Taken::NotAhead;
            };
            match state.parts[i].progress {
                Progress::Preparing => {
                    state = self
                        .0
                        .changed
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner());
                }
                Progress::Waiting => {
                    state.parts.remove(i);
                    return Taken::NotAhead;
                }
                Progress::Prepared(_) => {
                    let Progress::Prepared(p) = state.parts.remove(i).progress else {
                        unreachable!("matched above")
                    };
                    return Taken::Prepared(p);
                }
            }
        }
    }

    /// Prepares offered parts, the last first, until the render closes this.
    pub fn help_until_closed(&self) {
        let mut state = self.lock();
        while !state.closed {
            state = match self.prepare_one(state) {
                Ok(state) => state,
                Err(state) => self
                    .0
                    .changed
                    .wait(state)
                    .unwrap_or_else(|e| e.into_inner()),
            };
        }
    }

    /// Prepares the parts offered so far that no one has started, the last first.
    pub fn help(&self) {
        let mut state = self.lock();
        while let Ok(next) = self.prepare_one(state) {
            state = next;
        }
    }

    /// Prepares the last part no one has started; `Err` when there is none.
    fn prepare_one<'s>(
        &'s self,
        mut state: MutexGuard<'s, State>,
    ) -> Result<MutexGuard<'s, State>, MutexGuard<'s, State>> {
        let Some(i) = state
            .parts
            .iter()
            .rposition(|p| matches!(p.progress, Progress::Waiting))
        else {
            // Parts offered from now on need a job of their own.
            state.job_queued = false;
            return Err(state);
        };
        state.parts[i].progress = Progress::Preparing;
        let text = state.parts[i].text.clone();
        drop(state);
        // A helper that panicked would leave the render waiting for this part for ever: a
        // part whose preparation panicked counts as one the fast reader does not take (the
        // render then reads it with the general reader).
        let prepared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prepare(&text)))
            .ok()
            .flatten();
        let mut state = self.lock();
        // Found again by its text: `take` may have removed parts before it.
        if let Some(part) = state.parts.iter_mut().find(|p| Arc::ptr_eq(&p.text, &text)) {
            part.progress = Progress::Prepared(prepared);
        }
        self.0.changed.notify_all();
        Ok(state)
    }

    /// Ends the render's offers: parts not taken are dropped, helpers stop once they have
    /// finished the part they are preparing (their results are dropped).
    pub fn close(&self) {
        {
            let mut state = self.lock();
            state.closed = true;
            state.parts.clear();
        }
        self.0.changed.notify_all();
    }
}

impl Default for Ahead {
    fn default() -> Ahead {
        Ahead::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd_like(n: usize) -> String {
        let mut s = String::from("apiVersion: v1\nkind: Thing\nspec:\n");
        for i in 0..n {
            s.push_str(&format!("  key{i}:\n    description: text number {i}\n"));
        }
        s
    }

    #[test]
    fn prepared_by_a_helper_or_left_to_the_caller() {
        let worker = cores::Worker::start("test-ahead", cores::MAIN_THREAD_STACK);
        let ahead = match &worker {
            Some(worker) => Ahead::with_worker(worker.jobs()),
            None => Ahead::new(),
        };
        let parts: Vec<String> = (0..6).map(|i| crd_like(200 + i)).collect();
        ahead.offer(parts.iter().map(String::as_str).chain(["small: 1"]));
        for p in &parts {
            match ahead.take(p) {
                Taken::Prepared(prepared) => assert!(prepared.is_some()),
                Taken::NotAhead => assert!(prepare(p).is_some()),
            }
            // Taken once: a second take finds nothing.
            assert!(matches!(ahead.take(p), Taken::NotAhead));
        }
        assert!(matches!(ahead.take("small: 1"), Taken::NotAhead));
        ahead.close();
        // After closing, offers are ignored.
        ahead.offer(parts.iter().map(String::as_str));
        assert!(matches!(ahead.take(&parts[0]), Taken::NotAhead));
    }

    #[test]
    fn parts_prepared_by_the_caller_s_helper_are_taken_prepared() {
        let ahead = Ahead::new();
        let parts: Vec<String> = (0..4).map(|i| crd_like(300 + i)).collect();
        ahead.offer(
            parts
                .iter()
                .map(String::as_str)
                .chain(["kind: [not, fast]\n"]),
        );
        ahead.help();
        for p in &parts {
            assert!(matches!(ahead.take(p), Taken::Prepared(Some(_))));
        }
        ahead.close();
    }

    #[test]
    fn a_part_being_prepared_is_waited_for() {
        let ahead = Ahead::new();
        let part = crd_like(5000);
        ahead.offer([part.as_str()]);
        std::thread::scope(|s| {
            let helper = ahead.clone();
            s.spawn(move || helper.help_until_closed());
            // Until the helper starts, the part is the caller's; once it has, it is waited
            // for. Either way the caller gets it once, and the helper is not left waiting.
            match ahead.take(&part) {
                Taken::Prepared(p) => assert!(p.is_some()),
                Taken::NotAhead => assert!(prepare(&part).is_some()),
            }
            ahead.close();
        });
    }
}
