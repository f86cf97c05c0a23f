//! Progress of a long command on stderr: the library reports through a callback
//! (`compat::plan::ProgressSink`), this shows it.
//!
//! - stderr a terminal: a bar (indicatif) once the command has run a second, redrawn by a
//!   steady tick several times a second even while the library is silent (its elapsed time
//!   moves), cleared before the result is printed;
//! - otherwise nothing, unless `--progress` asks for plain lines (CI logs keep lines; a
//!   redrawn bar would be noise there): the first report at once, then the latest state at
//!   most once a second and at least once a second while the command runs.

use std::io::IsTerminal;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use compat::plan::{Progress, ProgressSink};

/// The pace of plain lines, and how long a quick command stays without a bar.
const SECOND: Duration = Duration::from_secs(1);

/// How a command's progress is shown.
pub struct CommandProgress {
    shared: Option<Arc<Shared>>,
    /// Stops the ticker (by being dropped) and waits for it.
    ticker: Option<(Sender<()>, JoinHandle<()>)>,
}

struct Shared {
    /// `planning`, `upgrades`: the start of every line.
    what: &'static str,
    bar: bool,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    latest: Option<Progress>,
    /// The bar, once shown.
    shown: Option<indicatif::ProgressBar>,
    /// When the last plain line was printed.
    printed: Option<Instant>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn report(&self, p: &Progress) {
        let mut state = self.state();
        state.latest = Some(*p);
        if self.bar {
            if let Some(bar) = &state.shown {
                update(bar, p);
            }
        } else if state.printed.is_none_or(|t| t.elapsed() >= SECOND) {
            self.print_line(&mut state);
        }
    }

    /// The bar appears after a second (it then redraws itself), or the latest state is
    /// printed again when no line came for a second. Returns when to tick next.
    fn tick(&self) -> Duration {
        let mut state = self.state();
        if self.bar {
            if state.shown.is_none() {
                state.shown = Some(self.new_bar(state.latest.as_ref()));
            }
            return SECOND;
        }
        match state.printed.and_then(|t| SECOND.checked_sub(t.elapsed())) {
            Some(wait) if !wait.is_zero() => wait,
            _ => {
                self.print_line(&mut state);
                SECOND
            }
        }
    }

    #[allow(clippy::print_stderr)] // progress is a diagnostic: stderr, next to the data on stdout
    fn print_line(&self, state: &mut State) {
        let elapsed = self.started.elapsed().as_secs();
        match &state.latest {
            Some(p) => eprintln!(
                "{}: {} ({} of {}), {elapsed}s",
                self.what, p.stage, p.done, p.total
            ),
            None => eprintln!("{}: working, {elapsed}s", self.what),
        }
        state.printed = Some(Instant::now());
    }

    fn new_bar(&self, latest: Option<&Progress>) -> indicatif::ProgressBar {
        let style = indicatif::ProgressStyle::with_template(
            "{spinner} {prefix}: {msg} {wide_bar} {pos}/{len} ({elapsed})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(0),
            indicatif::ProgressDrawTarget::stderr(),
        )
        .with_style(style)
        .with_prefix(self.what)
        .with_message("working")
        .with_elapsed(self.started.elapsed());
        if let Some(p) = latest {
            update(&bar, p);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }
}

fn update(bar: &indicatif::ProgressBar, p: &Progress) {
    bar.set_length(p.total as u64);
    bar.set_position(p.done as u64);
    if bar.message() != p.stage {
        bar.set_message(p.stage);
    }
}

impl CommandProgress {
    /// Progress for a command (`what` starts each line); `lines` (`--progress`) asks for plain
    /// lines when stderr is not a terminal.
    pub fn new(what: &'static str, lines: bool) -> Self {
        let bar = std::io::stderr().is_terminal();
        if !bar && !lines {
            return CommandProgress {
                shared: None,
                ticker: None,
            };
        }
        let shared = Arc::new(Shared {
            what,
            bar,
            started: Instant::now(),
            state: Mutex::default(),
        });
        let (stop, stopped) = channel();
        let ticking = Arc::clone(&shared);
        let ticker = std::thread::spawn(move || tick_until(&ticking, &stopped));
        CommandProgress {
            shared: Some(shared),
            ticker: Some((stop, ticker)),
        }
    }

    /// The library's callback: every report (this side keeps the pace), or none when
    /// nothing is shown.
    pub fn sink(&self) -> Option<ProgressSink> {
        let shared = Arc::clone(self.shared.as_ref()?);
        Some(ProgressSink::new(move |p| shared.report(p)).every(Duration::ZERO))
    }

    /// Stops the ticker and clears the bar.
    pub fn finish(self) {
        if let Some((stop, ticker)) = self.ticker {
            drop(stop);
            let _ = ticker.join();
        }
        if let Some(shared) = self.shared
            && let Some(bar) = shared.state().shown.take()
        {
            bar.finish_and_clear();
        }
    }
}

/// Ticks (about once a second) until the sender is dropped.
fn tick_until(shared: &Shared, stopped: &Receiver<()>) {
    let mut next = SECOND;
    loop {
        match stopped.recv_timeout(next) {
            Err(RecvTimeoutError::Timeout) => next = shared.tick(),
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
