//! `compat generate` (hidden): writes a seeded workload (`compat::generate`) to disk, for
//! benchmarks and tests.

use std::path::PathBuf;

use clap::Args;
use compat::{loader, report};

use super::{CliError, Outcome};

#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools)] // mutually exclusive switches, one family each
pub struct GenerateArgs {
    /// The directory to write `catalog/` and `env.yml` into
    #[arg(long)]
    pub out: PathBuf,
    /// How many products
    #[arg(long, default_value_t = 100)]
    pub products: usize,
    /// How many releases of each product
    #[arg(long, default_value_t = 10)]
    pub releases: usize,
    /// The seed: the same seed writes the same files
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tight two-sided windows on every dependency (adversarial for the planner)
    #[arg(long)]
    pub tight: bool,
    /// The hard family: a hidden consistent state behind arbitrary windows (it goes to
    /// `consistent.yml`)
    #[arg(long, conflicts_with = "tight")]
    pub hard: bool,
    /// The capability family: the realistic one plus capabilities, constraints, runtime
    /// requirements, properties, deprecations and an environment `runtime:` and `policy:`;
    /// with --hard, the hard family plus capabilities, compound constraints, rules and
    /// runtime requirements (both states still valid)
    #[arg(long, conflicts_with = "tight")]
    pub capabilities: bool,
    /// The instance family: the realistic one plus namespaces, labels, bindings, outputs
    /// and wired inputs (SPEC section 10); with --capabilities, both (every capability
    /// provider runs in the global namespace)
    #[arg(long, conflicts_with_all = ["tight", "hard"])]
    pub instances: bool,
    /// The tenant family: N namespaces each running a web tier, its database and its cache
    /// (section 10 at scale; a fixed catalog of four products, so `--products` is ignored)
    #[arg(long, value_name = "N", conflicts_with_all = ["tight", "hard", "capabilities", "instances"])]
    pub tenants: Option<usize>,
    /// An invalid start: every Nth product the environment names runs its oldest release
    /// (the catalog unchanged)
    #[arg(long, value_name = "N")]
    pub stale: Option<usize>,
}

pub fn run(args: &GenerateArgs) -> Result<Outcome, CliError> {
    use std::fmt::Write as _;

    use compat::generate::Shape;
    let shape = if args.instances && args.capabilities {
        Shape::InstancesCapabilities
    } else if args.instances {
        Shape::Instances
    } else if args.hard && args.capabilities {
        Shape::HardCapabilities
    } else if args.capabilities {
        Shape::Capabilities
    } else if args.hard {
        Shape::Hard
    } else if args.tight {
        Shape::Tight
    } else {
        Shape::Realistic
    };
    let (mut generated, products) = match args.tenants {
        Some(namespaces) => (
            compat::generate::tenants(namespaces, args.releases, args.seed),
            4,
        ),
        None => (
            compat::generate::generate(compat::generate::Params {
                products: args.products,
                releases: args.releases,
                seed: args.seed,
                shape,
            }),
            args.products,
        ),
    };
    generated.stale(args.stale.unwrap_or(0));
    let consistent = args.out.join("consistent.yml");
    let files = generated
        .manifests
        .iter()
        .map(|(path, text)| (args.out.join(path), text.as_str()))
        .chain(std::iter::once((
            args.out.join("env.yml"),
            generated.environment.as_str(),
        )))
        .chain(
            generated
                .consistent
                .as_deref()
                .map(|text| (consistent.clone(), text)),
        );
    loader::write_files(files)?;
    let mut stdout = format!(
        "wrote {} ({} bytes of manifests) and {} entities to {}\n",
        report::plural(products * args.releases.max(1), "release"),
        generated.manifest_bytes(),
        generated.entities,
        args.out.display()
    );
    if generated.consistent.is_some() {
        let _ = writeln!(
            stdout,
            "wrote the hidden consistent state to {}",
            consistent.display()
        );
    }
    Ok(Outcome::new(stdout, true))
}
