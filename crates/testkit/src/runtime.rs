use std::future::Future;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// [`wait_until`] gave up.
#[derive(Debug, thiserror::Error)]
#[error("timed out waiting for {what} (within {timeout:?})")]
pub struct TimedOut {
    pub what: String,
    pub timeout: Duration,
}

/// Polls `check` every `every` until it gives a value, checking once more when `timeout` has
/// passed; `what` names the awaited state in the error. The caller adds what helps explain a
/// time-out (a log, the last state seen).
pub async fn wait_until<T, F, Fut>(
    what: &str,
    timeout: Duration,
    every: Duration,
    mut check: F,
) -> Result<T, TimedOut>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check().await {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(TimedOut {
                what: what.to_string(),
                timeout,
            });
        }
        tokio::time::sleep(every).await;
    }
}

/// Runs `f` to its end on a runtime of its own with two workers, so the tasks a test spawns
/// go on while it waits.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime")
        .block_on(f)
}

/// Runs `command` to its end on the runtime's blocking threads, so the test's other tasks (a
/// fake kubelet marking workloads ready, a watch) go on meanwhile.
pub async fn output(mut command: Command) -> Output {
    let program = command.get_program().to_string_lossy().into_owned();
    tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("the blocking task ran")
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{block_on, wait_until};

    #[test]
    fn returns_the_first_value_and_times_out_naming_the_state() {
        let ms = Duration::from_millis;
        let mut calls = 0;
        let third = block_on(wait_until("the third call", ms(2000), ms(1), || {
            calls += 1;
            let n = calls;
            async move { (n == 3).then_some(n) }
        }));
        assert_eq!(third.unwrap(), 3);

        let never = block_on(wait_until("never", ms(20), ms(5), || async { None::<()> }));
        let err = never.unwrap_err();
        assert_eq!(err.to_string(), "timed out waiting for never (within 20ms)");
    }

    #[cfg(unix)]
    #[test]
    fn output_runs_beside_other_tasks() {
        // The command waits for a file that another task writes while it runs.
        let flag = std::env::temp_dir().join(format!("testkit-output-{}", std::process::id()));
        let _ = std::fs::remove_file(&flag);
        let mut command = std::process::Command::new("sh");
        command.arg("-c").arg(format!(
            "while [ ! -e '{0}' ]; do sleep 0.01; done; echo seen",
            flag.display()
        ));
        let out = block_on(async {
            let run = tokio::spawn(super::output(command));
            tokio::time::sleep(Duration::from_millis(50)).await;
            std::fs::write(&flag, "").unwrap();
            run.await.unwrap()
        });
        let _ = std::fs::remove_file(&flag);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "seen\n");
    }
}
