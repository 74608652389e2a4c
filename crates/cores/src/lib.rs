//! Starting a helper thread beside a busy one at once.
//!
//! Linux queues a new thread on its parent's core. While the parent keeps that core busy, an
//! idle core takes the new thread only at its next load balance, up to a scheduler tick later
//! (measured on the project's 2-core machine: a median of 2.9 ms, about as long as a whole
//! `helm template` of Istio's istiod chart, and the two threads then often share one core).
//! Worse, the new thread may preempt its parent and run on the parent's core while the parent
//! waits. [`Parent`] keeps a helper off its parent's core: the parent marks the new thread
//! right after spawning it ([`Parent::keep_off`], which moves a thread that has not run yet at
//! no cost to the parent), and the helper checks as its first step ([`Parent::leave`], for when
//! it ran first). The helper then starts on another core within about 0.1 ms while the parent
//! goes on; a helper may not run on its parent's core for the rest of its life, the parent
//! stays unpinned.
//!
//! [`step_aside`] is the older way, for threads spawned where no handle to mark is at hand
//! (scoped threads): the parent moves itself to another core and back to all it may use. It
//! costs the parent the wait for that core to take it (0.05 ms, up to a millisecond on this
//! machine's virtual cores).
//!
//! A [`Worker`] is such a helper that runs jobs handed over in turn, and between jobs watches
//! for the next for a while instead of sleeping at once: a sleeping thread's wake-up costs a
//! virtual core's wake-up, up to hundreds of microseconds.
//!
//! It also answers how many cores there are to use, once per process ([`available`]).
//!
//! This crate owns only that; it knows nothing of what the threads do.

/// The core a thread starting a helper runs on (see the crate docs).
#[derive(Clone, Copy, Debug)]
pub struct Parent {
    /// `None` where it cannot be read (and off Linux): then nothing is done.
    cpu: Option<usize>,
}

impl Parent {
    /// The calling thread's core, read just before it spawns a helper.
    pub fn here() -> Parent {
        #[cfg(target_os = "linux")]
        {
            Parent {
                cpu: linux::current_cpu(),
            }
        }
        #[cfg(not(target_os = "linux"))]
        Parent { cpu: None }
    }

    /// Called by the parent right after spawning `helper`: it may run on every core the
    /// parent may, but the parent's.
    pub fn keep_off<T>(self, helper: &std::thread::JoinHandle<T>) {
        #[cfg(target_os = "linux")]
        if let Some(cpu) = self.cpu {
            use std::os::unix::thread::JoinHandleExt;
            linux::keep_off(Some(helper.as_pthread_t()), cpu);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = helper;
    }

    /// Called by the helper as its first step: the same, for when it ran before its parent
    /// could mark it (on the parent's core, which it then leaves).
    pub fn leave(self) {
        #[cfg(target_os = "linux")]
        if let Some(cpu) = self.cpu {
            linux::keep_off(None, cpu);
        }
    }
}

/// How many threads can run at once (`std::thread::available_parallelism`, 1 where that
/// fails), read once per process: each reading costs tens of microseconds (the cgroup's CPU
/// quota is read from files), and a render asks before each helper it might start.
pub fn available() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A helper thread kept off its parent's core (see [`Parent`]) that runs jobs in the order
/// they come, for a caller with several kinds of work to hand over in turn: one thread
/// started once costs less than one started for each, and is running (its stack and memory
/// touched) by the time the later work comes. Out of jobs, it watches for the next a few
/// milliseconds before it sleeps. Dropping it waits for the jobs handed over.
pub struct Worker {
    jobs: JobQueue,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The main thread's stack size on Linux, for helpers that must go as deep (a deeply nested
/// template or document) as the main thread would; reserved, not touched.
pub const MAIN_THREAD_STACK: usize = 8 << 20;

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Jobs {
    waiting: std::collections::VecDeque<Job>,
    closed: bool,
}

impl Worker {
    /// A worker named `name` with `stack_size` bytes of stack; `None` with fewer than two
    /// cores (it would only take turns with the caller) or when no thread can be started.
    pub fn start(name: &str, stack_size: usize) -> Option<Worker> {
        if available() < 2 {
            return None;
        }
        let jobs = JobQueue(Default::default());
        let theirs = jobs.0.clone();
        let parent = Parent::here();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .stack_size(stack_size)
            .spawn(move || {
                parent.leave();
                let queue = &*theirs;
                loop {
                    let job = {
                        let mut jobs = queue.lock();
                        loop {
                            if let Some(job) = jobs.waiting.pop_front() {
                                break job;
                            }
                            if jobs.closed {
                                return;
                            }
                            let seen = queue.news.load(std::sync::atomic::Ordering::Acquire);
                            drop(jobs);
                            let news = queue.spin_for_news(seen);
                            jobs = queue.lock();
                            if !news && jobs.waiting.is_empty() && !jobs.closed {
                                jobs = queue.changed.wait(jobs).unwrap_or_else(|e| e.into_inner());
                            }
                        }
                    };
                    // A job that panicked is the job's to report (its results never come);
                    // the worker goes on with the next.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .ok()?;
        parent.keep_off(&thread);
        Some(Worker {
            jobs,
            thread: Some(thread),
        })
    }

    /// Hands `job` over; it runs after the jobs handed over before it.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) {
        self.jobs.run(job);
    }

    /// A handle for handing over jobs from where the worker itself cannot be kept (it does
    /// not keep the worker running: jobs handed over once the worker is dropped never run).
    pub fn jobs(&self) -> JobQueue {
        self.jobs.clone()
    }
}

/// Hands jobs to a [`Worker`] (see [`Worker::jobs`]).
#[derive(Clone)]
pub struct JobQueue(std::sync::Arc<Queue>);

#[derive(Default)]
struct Queue {
    jobs: std::sync::Mutex<Jobs>,
    changed: std::sync::Condvar,
    /// Counts every hand-over and the close: what a worker between jobs watches.
    news: std::sync::atomic::AtomicU64,
}

/// How long a worker out of jobs watches for the next before it sleeps. Waking a sleeping
/// thread costs a wake-up of its core, which on a virtual machine is up to hundreds of
/// microseconds (a render's helper was seen to start the job of reading heads, handed over
/// mid-render, only after the render had done that work itself); a render's jobs come closer
/// than this. The watch costs at most this much of the other core's time after each job.
const SPIN: std::time::Duration = std::time::Duration::from_millis(3);

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Jobs> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn announce(&self) {
        self.news.fetch_add(1, std::sync::atomic::Ordering::Release);
        self.changed.notify_one();
    }

    /// Whether news came (`news` moved from `seen`) within [`SPIN`].
    fn spin_for_news(&self, seen: u64) -> bool {
        let start = std::time::Instant::now();
        loop {
            for _ in 0..64 {
                if self.news.load(std::sync::atomic::Ordering::Acquire) != seen {
                    return true;
                }
                std::hint::spin_loop();
            }
            if start.elapsed() >= SPIN {
                return false;
            }
        }
    }
}

impl JobQueue {
    /// Hands `job` over; `false` (and the job dropped) when the worker has ended.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) -> bool {
        let mut jobs = self.0.lock();
        if jobs.closed {
            return false;
        }
        jobs.waiting.push_back(Box::new(job));
        drop(jobs);
        self.0.announce();
        true
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.jobs.0.lock().closed = true;
        self.jobs.0.announce();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Moves the calling thread to another core it is allowed on, if there is one (see the crate
/// docs). Does nothing where the core or the allowed set cannot be read, and off Linux.
pub fn step_aside() {
    #[cfg(target_os = "linux")]
    linux::step_aside();
}

#[cfg(target_os = "linux")]
mod linux {
    use std::mem::{MaybeUninit, size_of};

    pub fn current_cpu() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes nothing.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    /// Lets `thread` (the calling thread when `None`) run on every core the calling thread
    /// may run on but `cpu`; nothing is changed when that leaves none.
    pub fn keep_off(thread: Option<libc::pthread_t>, cpu: usize) {
        let size = size_of::<libc::cpu_set_t>();
        // SAFETY: the set is plain data that `sched_getaffinity` fills (read only when that
        // succeeds); both calls get a pointer to a live, initialised set of the size they
        // are told. `thread` is a handle of a thread not yet joined (the caller holds its
        // `JoinHandle`), so it names a live or finished-but-unjoined thread.
        unsafe {
            let mut allowed = MaybeUninit::<libc::cpu_set_t>::zeroed();
            if libc::sched_getaffinity(0, size, allowed.as_mut_ptr()) != 0 {
                return;
            }
            let mut elsewhere = allowed.assume_init();
            if cpu >= libc::CPU_SETSIZE as usize {
                return;
            }
            libc::CPU_CLR(cpu, &mut elsewhere);
            if libc::CPU_COUNT(&elsewhere) == 0 {
                return;
            }
            match thread {
                None => libc::sched_setaffinity(0, size, &elsewhere),
                Some(t) => libc::pthread_setaffinity_np(t, size, &elsewhere),
            };
        }
    }

    pub fn step_aside() {
        let size = size_of::<libc::cpu_set_t>();
        // SAFETY: `sched_getcpu` takes nothing; the set is plain data that `sched_getaffinity`
        // fills (it is read only when that succeeds), and both `sched_setaffinity` calls get a
        // pointer to a live, initialised set of the size they are told. Pid 0 is this thread.
        unsafe {
            let current = libc::sched_getcpu();
            let mut allowed = MaybeUninit::<libc::cpu_set_t>::zeroed();
            if current < 0 || libc::sched_getaffinity(0, size, allowed.as_mut_ptr()) != 0 {
                return;
            }
            let allowed = allowed.assume_init();
            let mut elsewhere = allowed;
            libc::CPU_CLR(current as usize, &mut elsewhere);
            if libc::CPU_COUNT(&elsewhere) == 0 {
                return;
            }
            // Allowed only elsewhere, the thread is moved off this core before the call
            // returns; allowed everywhere again, it stays where it was moved.
            if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
                libc::sched_setaffinity(0, size, &allowed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The cores the calling thread may run on.
    #[cfg(target_os = "linux")]
    fn allowed() -> libc::cpu_set_t {
        let mut set = std::mem::MaybeUninit::<libc::cpu_set_t>::zeroed();
        // SAFETY: as in `keep_off`.
        unsafe {
            assert_eq!(
                libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), set.as_mut_ptr()),
                0
            );
            set.assume_init()
        }
    }

    #[cfg(target_os = "linux")]
    fn count(set: &libc::cpu_set_t) -> i32 {
        // SAFETY: `CPU_COUNT` reads a plain set.
        unsafe { libc::CPU_COUNT(set) }
    }

    /// The thread keeps every core it was allowed on.
    #[test]
    #[cfg(target_os = "linux")]
    fn allowed_cores_are_restored() {
        let before = count(&allowed());
        super::step_aside();
        assert_eq!(count(&allowed()), before);
    }

    /// A helper kept off its parent's core may run on every other core the parent may; the
    /// parent keeps all of them.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_helper_is_kept_off_its_parent_s_core_only() {
        let before = allowed();
        let parent = super::Parent::here();
        let helper = std::thread::spawn(move || {
            parent.leave();
            // SAFETY: `sched_getcpu` takes nothing.
            (allowed(), unsafe { libc::sched_getcpu() })
        });
        parent.keep_off(&helper);
        let (theirs, ran_on) = helper.join().unwrap();
        let cpu = parent.cpu.unwrap();
        if count(&before) > 1 {
            // SAFETY: `CPU_ISSET` reads a plain set.
            assert!(!unsafe { libc::CPU_ISSET(cpu, &theirs) });
            assert_eq!(count(&theirs), count(&before) - 1);
            assert_ne!(ran_on as usize, cpu);
        } else {
            assert_eq!(count(&theirs), count(&before));
        }
        assert_eq!(count(&allowed()), count(&before));
    }

    /// Jobs run in the order handed over, one that panics does not stop the next, and
    /// dropping the worker waits for them.
    #[test]
    fn a_worker_runs_its_jobs_in_order() {
        let Some(worker) = super::Worker::start("test-worker", 1 << 20) else {
            assert!(super::available() < 2);
            return;
        };
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        for i in 0..5 {
            let seen = seen.clone();
            worker.run(move || {
                if i == 2 {
                    panic!("job 2 fails");
                }
                seen.lock().unwrap().push(i);
            });
        }
        drop(worker);
        assert_eq!(*seen.lock().unwrap(), [0, 1, 3, 4]);
    }

    /// A job handed over runs whether the worker is still watching for one (just after its
    /// last) or has gone to sleep.
    #[test]
    fn jobs_run_whether_the_worker_watches_or_sleeps() {
        let Some(worker) = super::Worker::start("test-worker", 1 << 20) else {
            assert!(super::available() < 2);
            return;
        };
        let (done, finished) = std::sync::mpsc::channel();
        for pause in [std::time::Duration::ZERO, super::SPIN / 4, super::SPIN * 3] {
            std::thread::sleep(pause);
            let done = done.clone();
            worker.run(move || done.send(pause).unwrap());
            let ran = finished.recv_timeout(std::time::Duration::from_secs(30));
            assert_eq!(ran, Ok(pause));
        }
        drop(worker);
    }
}
