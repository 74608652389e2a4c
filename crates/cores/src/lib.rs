//! Starting a helper thread beside a busy one at once.
//!
//! Linux queues a new thread on its parent's core. While the parent keeps that core busy, an
//! idle core takes the new thread only at its next load balance, up to a scheduler tick later
//! (measured on the project's 2-core machine: a median of 2.9 ms, about as long as a whole
//! `helm template` of Istio's istiod chart, and the two threads then often share one core).
//! [`step_aside`], called by the parent right after spawning, moves the parent to another core
//! it may run on, so the new thread starts on the parent's core at once (0.1–0.2 ms) and both
//! run side by side. The parent's allowed cores are restored at once: nothing stays pinned.
//!
//! It also answers how many cores there are to use, once per process ([`available`]).
//!
//! This crate owns only that; it knows nothing of what the threads do.

/// How many threads can run at once (`std::thread::available_parallelism`, 1 where that
/// fails), read once per process: each reading costs tens of microseconds (the cgroup's CPU
/// quota is read from files), and a render asks before each helper it might start.
pub fn available() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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
    /// The thread keeps every core it was allowed on.
    #[test]
    #[cfg(target_os = "linux")]
    fn allowed_cores_are_restored() {
        let allowed = || {
            let mut set = std::mem::MaybeUninit::<libc::cpu_set_t>::zeroed();
            // SAFETY: as in `step_aside`.
            unsafe {
                assert_eq!(
                    libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), set.as_mut_ptr()),
                    0
                );
                libc::CPU_COUNT(&set.assume_init())
            }
        };
        let before = allowed();
        super::step_aside();
        assert_eq!(allowed(), before);
    }
}
