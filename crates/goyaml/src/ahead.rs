//! Preparing large YAML documents ahead of need, on a thread that would otherwise wait.
//!
//! Istio's base chart splits its 1 MB CRD file with `splitList` and reads each part with
//! `fromYaml`. Preparing a part for reading (finding its repeated blocks and the blocks already
//! written as `toYaml` writes them, `fast::prepare`) is most of that chart's work, and a pure
//! function of the part's text. So `splitList` offers its large parts here (and `helm template`
//! offers a chart's large files cut the same way before the render starts), and a helper (a
//! job of the render's helper thread, or a thread that has finished its own work) prepares them
//! the largest first, while the render takes them in order: a part already prepared is taken,
//! one not started is prepared by the render itself, and while a helper finishes the one the
//! render needs, the render prepares the next not started (waiting only when there is none).
//! So neither thread idles while a part is left, and what is left for the end is small.
//! Nothing is ever prepared twice, and what a render reads does not depend on who prepared it.
//!
//! A render offers through its own [`Offering`], which keeps the offered texts alive: helpers
//! read them where they are (the render's strings are not shared across threads, and a copy of
//! a megabyte is a page fault for each 4 KiB). An offering that ends withdraws its parts and
//! waits for any helper still reading one. A render closes its [`Ahead`] when it ends: the
//! parts it never read are dropped, and its helpers stop.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use gotemplate::Str;

use crate::fast::{Prepared, prepare};

/// Parts shorter than this are not worth a thread's attention (`fromYaml` remembers nothing
/// shorter either).
const MIN_LEN: usize = 4096;

/// Documents offered for preparation during one render or more (cheap to clone: shared).
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
    /// The offering each part being prepared now came from (one entry per part).
    reading: Vec<u64>,
    /// The number of offerings made so far (each is known by its number).
    offerings: u64,
}

struct Part {
    text: Borrowed,
    offering: u64,
    progress: Progress,
}

/// The bytes of a text that an [`Offering`] keeps alive.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Borrowed {
    ptr: *const u8,
    len: usize,
}

// SAFETY: a `Borrowed` is only read while its offering keeps the text alive (see
// `Ahead::prepare_one` and `Offering`'s `Drop`); the text is immutable.
unsafe impl Send for Borrowed {}

impl Borrowed {
    fn of(text: &str) -> Borrowed {
        Borrowed {
            ptr: text.as_ptr(),
            len: text.len(),
        }
    }

    fn is(&self, text: &str) -> bool {
        self.ptr == text.as_ptr() && self.len == text.len()
    }

    /// The text.
    ///
    /// # Safety
    /// The offering that holds the text must still hold it.
    unsafe fn text<'t>(self) -> &'t str {
        // SAFETY: the bytes are a `str` kept alive by its offering (the caller's promise).
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.ptr, self.len)) }
    }
}

enum Progress {
    Waiting,
    Preparing,
    /// `None` when the fast reader does not take the text.
    Prepared(Option<Prepared>),
}

/// What [`Offering::take`] found for a text.
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

    fn wait<'s>(&'s self, state: MutexGuard<'s, State>) -> MutexGuard<'s, State> {
        self.0
            .changed
            .wait(state)
            .unwrap_or_else(|e| e.into_inner())
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

    /// Prepares offered parts, the largest first, until the render closes this.
    pub fn help_until_closed(&self) {
        let mut state = self.lock();
        while !state.closed {
            state = match self.prepare_one(state) {
                Ok(state) => state,
                Err(state) => self.wait(state),
            };
        }
    }

    /// Prepares the parts offered so far that no one has started, the largest first.
    pub fn help(&self) {
        let mut state = self.lock();
        while let Ok(next) = self.prepare_one(state) {
            state = next;
        }
    }

    /// Prepares the largest part no one has started; `Err` when there is none.
    fn prepare_one<'s>(
        &'s self,
        mut state: MutexGuard<'s, State>,
    ) -> Result<MutexGuard<'s, State>, MutexGuard<'s, State>> {
        // The largest first (the last of equal ones), so that what is left for the end, when
        // the render and its helpers finish together, is small.
        let largest = state
            .parts
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.progress, Progress::Waiting))
            .max_by_key(|(i, p)| (p.text.len, *i))
            .map(|(i, _)| i);
        let Some(i) = largest else {
            // Parts offered from now on need a job of their own.
            state.job_queued = false;
            return Err(state);
        };
        Ok(self.prepare_at(state, i))
    }

    /// Prepares part `i`, which no one has started.
    fn prepare_at<'s>(
        &'s self,
        mut state: MutexGuard<'s, State>,
        i: usize,
    ) -> MutexGuard<'s, State> {
        state.parts[i].progress = Progress::Preparing;
        let (text, offering) = (state.parts[i].text, state.parts[i].offering);
        // Until this entry is gone, the offering waits before it lets go of the text.
        state.reading.push(offering);
        drop(state);
        // A helper that panicked would leave the render waiting for this part for ever: a
        // part whose preparation panicked counts as one the fast reader does not take (the
        // render then reads it with the general reader).
        let prepared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: the offering is still reading-listed above, so it holds the text.
            prepare(unsafe { text.text() })
        }))
        .ok()
        .flatten();
        let mut state = self.lock();
        // Found again by its text: `take` may have removed parts before it.
        if let Some(part) = state
            .parts
            .iter_mut()
            .find(|p| p.offering == offering && p.text == text)
        {
            part.progress = Progress::Prepared(prepared);
        }
        if let Some(k) = state.reading.iter().position(|&o| o == offering) {
            state.reading.swap_remove(k);
        }
        self.0.changed.notify_all();
        state
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

/// One render's offers to an [`Ahead`]: the texts it offered, kept alive for the helpers
/// that read them (cheap to clone: shared; not for other threads).
#[derive(Clone)]
pub(crate) struct Offering(Rc<Offers>);

struct Offers {
    ahead: Ahead,
    number: u64,
    texts: RefCell<Vec<Str>>,
}

impl Offering {
    pub fn new(ahead: Ahead) -> Offering {
        let number = {
            let mut state = ahead.lock();
            state.offerings += 1;
            state.offerings
        };
        Offering(Rc::new(Offers {
            ahead,
            number,
            texts: RefCell::new(Vec::new()),
        }))
    }

    /// Offers the large `parts` of a split text for preparation.
    pub fn offer(&self, parts: &[Str]) {
        let offers = &*self.0;
        let ahead = &offers.ahead;
        let mut parts: Vec<&Str> = parts.iter().filter(|p| p.len() >= MIN_LEN).collect();
        let mut state = ahead.lock();
        // A part offered before (and not taken yet) is not offered again.
        parts.retain(|p| {
            !state
                .parts
                .iter()
                .any(|q| q.offering == offers.number && q.text.is(p))
        });
        if parts.is_empty() || state.closed {
            return;
        }
        // Kept before a helper can see them.
        offers
            .texts
            .borrow_mut()
            .extend(parts.iter().map(|&p| p.clone()));
        // Published in the order they came; a helper takes the largest.
        state.parts.extend(parts.into_iter().map(|part| Part {
            text: Borrowed::of(part),
            offering: offers.number,
            progress: Progress::Waiting,
        }));
        drop(state);
        ahead.0.changed.notify_all();
        ahead.queue_job();
    }

    /// The preparation of `text` if it was offered: taken when done, waited for when a helper
    /// is at it (preparing the caller's other parts no one has started meanwhile); a part not
    /// started is left to the caller (and to no helper after this).
    pub(crate) fn take(&self, text: &str) -> Taken {
        let offers = &*self.0;
        let ahead = &offers.ahead;
        let mut state = ahead.lock();
        loop {
            let mine = |p: &Part| p.offering == offers.number;
            // Usually the very text offered; else one equal to it.
            let found = state
                .parts
                .iter()
                .position(|p| mine(p) && p.text.is(text))
                .or_else(|| {
                    state.parts.iter().position(|p| {
                        // SAFETY: the part is this offering's, which holds its text.
                        mine(p) && p.text.len == text.len() && unsafe { p.text.text() } == text
                    })
                });
            let Some(i) = found else {
                return Taken::NotAhead;
            };
            match state.parts[i].progress {
                Progress::Preparing => {
                    // While a helper finishes this one, the render prepares the next of its
                    // own that no one has started (it needs that one soon), else waits.
                    let next = state
                        .parts
                        .iter()
                        .position(|p| mine(p) && matches!(p.progress, Progress::Waiting));
                    state = match next {
                        Some(j) => ahead.prepare_at(state, j),
                        None => ahead.wait(state),
                    };
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
}

impl Drop for Offers {
    /// Withdraws the parts not taken, and waits for helpers still reading one: only then may
    /// the texts go.
    fn drop(&mut self) {
        let ahead = &self.ahead;
        let mut state = ahead.lock();
        state.parts.retain(|p| p.offering != self.number);
        while state.reading.contains(&self.number) {
            state = ahead.wait(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd_like(n: usize) -> Str {
        let mut s = String::from("apiVersion: v1\nkind: Thing\nspec:\n");
        for i in 0..n {
            s.push_str(&format!("  key{i}:\n    description: text number {i}\n"));
        }
        Str::from(s)
    }

    #[test]
    fn prepared_by_a_helper_or_left_to_the_caller() {
        let worker = cores::Worker::start("test-ahead", cores::MAIN_THREAD_STACK);
        let ahead = match &worker {
            Some(worker) => Ahead::with_worker(worker.jobs()),
            None => Ahead::new(),
        };
        let offering = Offering::new(ahead.clone());
        let parts: Vec<Str> = (0..6).map(|i| crd_like(200 + i)).collect();
        let mut offered = parts.clone();
        offered.push(Str::from("small: 1"));
        offering.offer(&offered);
        for (k, p) in parts.iter().enumerate() {
            // A text equal to the one offered finds it too.
            let asked = if k % 2 == 0 {
                p.clone()
            } else {
                Str::from(p.to_string())
            };
            match offering.take(&asked) {
                Taken::Prepared(prepared) => assert!(prepared.is_some()),
                Taken::NotAhead => assert!(prepare(p).is_some()),
            }
            // Taken once: a second take finds nothing.
            assert!(matches!(offering.take(p), Taken::NotAhead));
        }
        assert!(matches!(offering.take("small: 1"), Taken::NotAhead));
        ahead.close();
        // After closing, offers are ignored.
        offering.offer(&parts);
        assert!(matches!(offering.take(&parts[0]), Taken::NotAhead));
    }

    #[test]
    fn parts_prepared_by_the_caller_s_helper_are_taken_prepared() {
        let ahead = Ahead::new();
        let offering = Offering::new(ahead.clone());
        let mut parts: Vec<Str> = (0..4).map(|i| crd_like(300 + i)).collect();
        // A tab is outside the fast reader's subset.
        parts.push(Str::from(format!("kind: Thing\n#\t{}\n", "x".repeat(5000))));
        offering.offer(&parts);
        ahead.help();
        for p in &parts[..4] {
            assert!(matches!(offering.take(p), Taken::Prepared(Some(_))));
        }
        assert!(matches!(offering.take(&parts[4]), Taken::Prepared(None)));
        ahead.close();
    }

    #[test]
    fn a_part_offered_again_is_prepared_once() {
        let ahead = Ahead::new();
        let offering = Offering::new(ahead.clone());
        let parts: Vec<Str> = (0..3).map(|i| crd_like(300 + i)).collect();
        offering.offer(&parts);
        offering.offer(&parts[1..]);
        assert_eq!(ahead.lock().parts.len(), 3);
        ahead.help();
        for p in &parts {
            assert!(matches!(offering.take(p), Taken::Prepared(Some(_))));
        }
        assert!(ahead.lock().parts.is_empty());
    }

    #[test]
    fn offerings_take_only_their_own_parts() {
        let ahead = Ahead::new();
        let (one, two) = (Offering::new(ahead.clone()), Offering::new(ahead.clone()));
        let part = crd_like(300);
        one.offer(std::slice::from_ref(&part));
        ahead.help();
        assert!(matches!(two.take(&part), Taken::NotAhead));
        assert!(matches!(one.take(&part), Taken::Prepared(Some(_))));
    }

    #[test]
    fn helpers_take_the_largest_part_first() {
        let ahead = Ahead::new();
        let offering = Offering::new(ahead.clone());
        let sizes = [300, 900, 200, 900, 500];
        let parts: Vec<Str> = sizes.iter().map(|&n| crd_like(n)).collect();
        offering.offer(&parts);
        let prepared = |state: &State| -> Vec<bool> {
            let done = |p: &Part| matches!(p.progress, Progress::Prepared(_));
            state.parts.iter().map(done).collect()
        };
        let state = ahead.prepare_one(ahead.lock()).ok().unwrap();
        // Of two equal ones, the later (the render reaches it last).
        assert_eq!(prepared(&state), [false, false, false, true, false]);
        let state = ahead.prepare_one(state).ok().unwrap();
        assert_eq!(prepared(&state), [false, true, false, true, false]);
        let state = ahead.prepare_one(state).ok().unwrap();
        assert_eq!(prepared(&state), [false, true, false, true, true]);
        drop(state);
        ahead.close();
    }

    #[test]
    fn the_render_prepares_the_next_part_while_a_helper_finishes_the_one_it_needs() {
        let ahead = Ahead::new();
        let offering = Offering::new(ahead.clone());
        let parts: Vec<Str> = (0..3).map(|i| crd_like(300 + i)).collect();
        offering.offer(&parts);
        // A helper has started the first part.
        ahead.lock().parts[0].progress = Progress::Preparing;
        std::thread::scope(|s| {
            let helper = ahead.clone();
            s.spawn(move || {
                // It finishes only once the render has prepared both others meanwhile.
                let mut state = helper.lock();
                while !state.parts[1..]
                    .iter()
                    .all(|p| matches!(p.progress, Progress::Prepared(Some(_))))
                {
                    state = helper.wait(state);
                }
                state.parts[0].progress = Progress::Prepared(prepare(&crd_like(300)));
                helper.0.changed.notify_all();
            });
            assert!(matches!(offering.take(&parts[0]), Taken::Prepared(Some(_))));
        });
        for p in &parts[1..] {
            assert!(matches!(offering.take(p), Taken::Prepared(Some(_))));
        }
        ahead.close();
    }

    #[test]
    fn a_part_being_prepared_is_waited_for() {
        let ahead = Ahead::new();
        let offering = Offering::new(ahead.clone());
        let part = crd_like(5000);
        offering.offer(std::slice::from_ref(&part));
        std::thread::scope(|s| {
            let helper = ahead.clone();
            s.spawn(move || helper.help_until_closed());
            // Until the helper starts, the part is the caller's; once it has, it is waited
            // for. Either way the caller gets it once, and the helper is not left waiting.
            match offering.take(&part) {
                Taken::Prepared(p) => assert!(p.is_some()),
                Taken::NotAhead => assert!(prepare(&part).is_some()),
            }
            ahead.close();
        });
    }

    #[test]
    fn an_offering_that_ends_waits_for_helpers_reading_its_texts() {
        // The texts exist only in the offering: each helper reads them while the offering
        // ends, and must not outlive them (Miri or a sanitizer would see a helper that did).
        for round in 0..20 {
            let ahead = Ahead::new();
            let offering = Offering::new(ahead.clone());
            let parts: Vec<Str> = (0..4).map(|i| crd_like(400 + i + round)).collect();
            offering.offer(&parts);
            drop(parts);
            std::thread::scope(|s| {
                let helper = ahead.clone();
                s.spawn(move || helper.help_until_closed());
                if round % 2 == 0 {
                    std::thread::yield_now();
                }
                drop(offering);
                assert!(ahead.lock().parts.is_empty(), "withdrawn");
                assert!(
                    ahead.lock().reading.is_empty(),
                    "no helper reads a text gone"
                );
                ahead.close();
            });
        }
    }
}
