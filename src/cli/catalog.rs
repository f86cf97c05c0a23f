//! `compat catalog import/list/show/providers`: maintaining a catalog, through the catalog interface
//! (`CatalogStore`), whatever backend `--db` (import) or `--catalog` (list, show) names.

use std::path::PathBuf;

use clap::Subcommand;
use compat::catalog::{Batch, Location};
use compat::loader;
use compat::manifest::facets::check_name;
use compat::matcher::Matcher;
use compat::product::ProductId;
use compat::range::Range;
use compat::report::layout::Layout;
use compat::report::{self, human, json::to_json};

use super::{
    CatalogArg, CliError, ConfigArgs, Format, LimitArgs, Outcome, argument, hidden, version_arg,
};

// None of them reads an environment: `--max-entities` is accepted, hidden.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Import manifest directories or files into a catalog database (all or nothing)
    #[command(mut_args(hidden(&["max_entities"])))]
    #[command(after_long_help = "\
Example:
  compat catalog import testdata/examples/catalog --db catalog.db")]
    Import {
        /// Manifest directories or files
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The catalog database: a file (created when missing) or a `postgres://` URL
        #[arg(long, value_name = "FILE", env = "COMPAT_CATALOG")]
        db: PathBuf,
        /// Overwrite stored releases whose manifest differs
        #[arg(long)]
        replace: bool,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List products and their versions in version order
    #[command(mut_args(hidden(&["max_entities"])))]
    #[command(after_long_help = "\
Example:
  compat catalog list --catalog testdata/examples/catalog")]
    List {
        /// Only this product (`group:name`)
        product: Option<String>,
        #[command(flatten)]
        catalog: StoreArg,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Show one release's declarations
    #[command(mut_args(hidden(&["max_entities"])))]
    #[command(after_long_help = "\
Example:
  compat catalog show com.example:api@1.1.0 --catalog testdata/examples/catalog")]
    Show {
        /// The release as `group:name@version`
        release: String,
        #[command(flatten)]
        catalog: StoreArg,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List the releases that provide a capability, in catalog order
    #[command(mut_args(hidden(&["max_entities"])))]
    #[command(after_long_help = "\
Example:
  compat catalog providers sql --min 8.0.0 --catalog testdata/examples/capabilities/catalog")]
    Providers {
        /// The capability's name
        name: String,
        /// Only providers of this version or newer
        #[arg(long, value_name = "V")]
        min: Option<String>,
        /// Only providers up to this matcher (`8.x.x`); a provider without a version matches
        /// only when neither bound is given
        #[arg(long, value_name = "M")]
        max: Option<String>,
        #[command(flatten)]
        catalog: StoreArg,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// The catalog `catalog list` and `catalog show` read: `--catalog` (`--db` as before), else
/// `COMPAT_CATALOG`, else the config file's `catalog`, as for the other commands.
#[derive(Debug, clap::Args)]
pub struct StoreArg {
    /// The catalog: a directory of manifests, a catalog file made by `compat catalog import`,
    /// or a `postgres://` URL [default: `catalog` in compat.toml]
    #[arg(
        long,
        visible_alias = "db",
        value_name = "PATH",
        env = "COMPAT_CATALOG"
    )]
    catalog: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
}

impl StoreArg {
    /// The location in force: the flag (or `COMPAT_CATALOG`), else the config file's.
    fn location(&self) -> Result<Location, CliError> {
        let config = self.config.load()?;
        let catalog = CatalogArg {
            catalog: self.catalog.iter().cloned().collect(),
        };
        // One flag or the config's one catalog: one path.
        let paths = catalog.resolve(&config)?;
        Ok(super::config::locations(&paths)?.remove(0))
    }
}

impl CatalogCommand {
    /// The limit flags given to the command.
    pub fn limits(&self) -> LimitArgs {
        match self {
            CatalogCommand::Import { limits, .. }
            | CatalogCommand::List { limits, .. }
            | CatalogCommand::Show { limits, .. }
            | CatalogCommand::Providers { limits, .. } => *limits,
        }
    }
}

pub fn run(command: CatalogCommand, layout: &Layout) -> Result<Outcome, CliError> {
    match command {
        CatalogCommand::Import {
            paths,
            db,
            replace,
            format,
            ..
        } => catalog_import(&paths, &db, replace, format),
        CatalogCommand::List {
            product,
            catalog,
            format,
            ..
        } => catalog_list(product.as_deref(), &catalog.location()?, format, layout),
        CatalogCommand::Show {
            release,
            catalog,
            format,
            ..
        } => catalog_show(&release, &catalog.location()?, format, layout),
        CatalogCommand::Providers {
            name,
            min,
            max,
            catalog,
            format,
            ..
        } => {
            let range = providers_range(&name, min.as_deref(), max.as_deref())?;
            let store = catalog.location()?.open_store()?;
            let rows = store.providers(&name, &range)?;
            let stdout = match format {
                Format::Json => report::capabilities::providers_json(&name, &range, &rows),
                Format::Human => {
                    report::capabilities::providers_human(&name, &range, &rows, layout)
                }
            };
            Ok(Outcome::new(stdout, true))
        }
    }
}

/// The capability name and `--min`/`--max` checked as a manifest's would be.
fn providers_range(name: &str, min: Option<&str>, max: Option<&str>) -> Result<Range, CliError> {
    check_name("capability", name).map_err(|m| argument("argument NAME", m))?;
    let minimum = min.map(|v| version_arg("--min", v)).transpose()?;
    let maximum = max
        .map(|m| Matcher::parse(m).map_err(|e| argument("--max", e)))
        .transpose()?;
    Ok(Range { minimum, maximum })
}

fn catalog_import(
    paths: &[PathBuf],
    db: &std::path::Path,
    replace: bool,
    format: Format,
) -> Result<Outcome, CliError> {
    // All or nothing: every problem of the batch is reported before the database is touched.
    let (files, unreadable) = loader::read_sources_and_errors(paths);
    let batch = Batch::check(files, unreadable)?;
    let location = Location::parse(db)?; // shown as given, less a URL's password
    let mut store = location.create_store()?;
    let summary = store.import(&batch, replace)?;
    let stdout = match format {
        Format::Json => to_json(&serde_json::json!({
            "schema_version": report::json::SCHEMA_VERSION,
            "db": location.to_string(),
            "files": batch.files().len(),
            "added": summary.added,
            "unchanged": summary.unchanged,
            "replaced": summary.replaced,
        })),
        Format::Human => format!(
            "{}: {} added, {} unchanged, {} replaced (from {})\n",
            location,
            report::plural(summary.added, "release"),
            summary.unchanged,
            summary.replaced,
            report::plural(batch.files().len(), "file"),
        ),
    };
    Ok(Outcome::new(stdout, true))
}

fn catalog_list(
    product: Option<&str>,
    location: &Location,
    format: Format,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let product = product
        .map(|p| ProductId::parse(p).map_err(|m| argument("argument PRODUCT", m)))
        .transpose()?;
    let store = location.open_store()?;
    let products = store.list(product.as_ref())?;
    let facets = store.facets(product.as_ref())?;
    if let Some(p) = &product
        && products.is_empty()
    {
        return Err(CliError::NotFound(format!(
            "{location}: no releases of `{p}`"
        )));
    }
    let stdout = match format {
        Format::Json => report::json::catalog_list(&products, &facets),
        Format::Human => {
            human::catalog_list(&products, layout)
                + &report::capabilities::list_human(&facets, layout)
        }
    };
    Ok(Outcome::new(stdout, true))
}

fn catalog_show(
    release: &str,
    location: &Location,
    format: Format,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let parsed = release.rsplit_once('@').ok_or_else(|| {
        argument(
            "argument RELEASE",
            format!("expected a release as `group:name@version`, found `{release}`"),
        )
    });
    let (product, version) = parsed.and_then(|(p, v)| {
        Ok((
            ProductId::parse(p).map_err(|m| argument("argument RELEASE", m))?,
            version_arg("argument RELEASE", v)?,
        ))
    })?;
    let store = location.open_store()?;
    let Some(m) = store.release(&product, &version)? else {
        return Err(CliError::NotFound(format!(
            "{location}: no release `{product} {version}`"
        )));
    };
    let stdout = match format {
        Format::Json => report::json::release(&m),
        Format::Human => human::release(&m, layout),
    };
    Ok(Outcome::new(stdout, true))
}
