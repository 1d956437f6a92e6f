//! A progress line on stderr for reads and resampling that take longer than
//! a second — only when stderr is a terminal, so logs and pipes stay clean.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Shared {
    phase: Mutex<String>,
    bytes: Arc<AtomicU64>,
    total: AtomicU64,
    done: AtomicBool,
}

/// Draws `phase · read MB of total MB (rate) · elapsed` until dropped.
pub struct Progress {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Starts the display thread (a no-op when stderr is not a terminal).
    pub fn start() -> Progress {
        let shared = Arc::new(Shared {
            phase: Mutex::new(String::new()),
            bytes: Arc::new(AtomicU64::new(0)),
            total: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        let thread = std::io::stderr().is_terminal().then(|| {
            let s = Arc::clone(&shared);
            std::thread::spawn(move || draw_loop(&s))
        });
        Progress { shared, thread }
    }

    /// The counter readers add the bytes they read to.
    pub fn bytes_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.shared.bytes)
    }

    /// Sets the total bytes expected (0 = unknown).
    pub fn set_total(&self, total: u64) {
        self.shared.total.store(total, Ordering::Relaxed);
    }

    /// Names what is happening now.
    pub fn phase(&self, phase: impl Into<String>) {
        if let Ok(mut p) = self.shared.phase.lock() {
            *p = phase.into();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn draw_loop(s: &Shared) {
    let start = Instant::now();
    let mut drew = false;
    while !s.done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let elapsed = start.elapsed();
        if elapsed < Duration::from_secs(1) {
            continue;
        }
        let phase = s.phase.lock().map(|p| p.clone()).unwrap_or_default();
        let read = s.bytes.load(Ordering::Relaxed) as f64 / 1e6;
        let total = s.total.load(Ordering::Relaxed) as f64 / 1e6;
        let secs = elapsed.as_secs_f64();
        let mut line = format!("rollstat: {phase}");
        if read > 0.0 {
            line += &format!(" · read {read:.0} MB");
            if total > 0.0 {
                line += &format!(" of {total:.0} MB");
            }
            line += &format!(" ({:.0} MB/s)", read / secs);
        }
        line += &format!(" · {secs:.1} s");
        let _ = write!(std::io::stderr(), "\r\x1b[2K{line}");
        drew = true;
    }
    if drew {
        let _ = write!(std::io::stderr(), "\r\x1b[2K");
    }
}
