//! Progress of a long plan on stderr: the library reports through a callback
//! (`compat::plan::ProgressSink`), this draws it.

/// A long plan says how far it has come, on stderr, so it never looks hung: a progress bar
/// per stage on a terminal (cleared before the result is printed), a plain line per report
/// elsewhere (CI logs keep lines; a redrawn bar would be noise or nothing there).
pub struct PlanProgress {
    /// `None` when stderr is not a terminal.
    bar: Option<std::sync::Arc<std::sync::Mutex<Option<StageBar>>>>,
}

/// The stage on screen and its bar.
type StageBar = (&'static str, indicatif::ProgressBar);

impl PlanProgress {
    pub fn new() -> Self {
        use std::io::IsTerminal;
        PlanProgress {
            bar: std::io::stderr().is_terminal().then(Default::default),
        }
    }

    pub fn sink(&self) -> compat::plan::ProgressSink {
        let bar = self.bar.clone();
        compat::plan::ProgressSink::new(move |p| {
            let Some(bar) = &bar else {
                print_progress_line(p);
                return;
            };
            let mut shown = bar
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match &*shown {
                Some((stage, bar)) if *stage == p.stage => bar.set_position(p.done as u64),
                _ => {
                    if let Some((_, old)) = shown.take() {
                        old.finish_and_clear();
                    }
                    let style = indicatif::ProgressStyle::with_template(
                        "planning: {msg} {wide_bar} {pos}/{len} ({elapsed})",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
                    // built whole before its first draw
                    let new = indicatif::ProgressBar::with_draw_target(
                        Some(p.total as u64),
                        indicatif::ProgressDrawTarget::stderr(),
                    )
                    .with_style(style)
                    .with_message(p.stage)
                    .with_position(p.done as u64);
                    new.tick();
                    *shown = Some((p.stage, new));
                }
            }
        })
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar
            && let Some((_, bar)) = bar
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        {
            bar.finish_and_clear();
        }
    }
}

#[allow(clippy::print_stderr)] // progress is a diagnostic: stderr, next to the data on stdout
fn print_progress_line(p: &compat::plan::Progress) {
    eprintln!("planning: {} ({} of {})", p.stage, p.done, p.total);
}
