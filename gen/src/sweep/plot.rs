//! The sweep's plots, each as PNG and SVG (`plotters`): LUT4 against Fmax for every point
//! (`lut4-fmax`), each resource against each varied field (`resources`), LUT4s per lane
//! (`luts-per-lane`).
//!
//! Text is drawn with a TrueType font found at run time (`WARPFORGE_FONT`, then the usual
//! DejaVu, Liberation and Lato paths, then `fc-match`): plotters' `ab_glyph` backend, so that
//! nothing is needed at build time. Without any font the plots are not drawn and the sweep
//! says why (the CSV and JSON are written all the same).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{PointResult, Summary};

/// A point of a resource plot's series: (x position, amount used, fits the device).
type SeriesPoint = (i32, f64, bool);

/// Why the plots were not drawn.
#[derive(Debug)]
pub enum PlotError {
    /// No TrueType font for their text.
    NoFont(String),
    Other(anyhow::Error),
}

impl<E: std::fmt::Display> From<DrawingAreaErrorKind<E>> for PlotError
where
    E: std::error::Error + Send + Sync,
{
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Other(anyhow::anyhow!("drawing a plot: {e}"))
    }
}

type PResult<T> = Result<T, PlotError>;

/// The font family every text of the plots uses (registered by [`font`]).
const FAMILY: &str = "sans-serif";

/// Where fonts usually are (Debian, Fedora, Arch, macOS).
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Register a TrueType font for the plots' text (once per process); the file used.
pub fn font() -> Result<PathBuf, String> {
    static FONT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let register = |p: &Path| -> Result<PathBuf, String> {
            let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font(FAMILY, FontStyle::Normal, bytes)
                .map_err(|_| format!("{}: not a TrueType/OpenType font", p.display()))?;
            Ok(p.to_path_buf())
        };
        if let Some(p) = std::env::var_os("WARPFORGE_FONT") {
            return register(Path::new(&p)).map_err(|e| format!("WARPFORGE_FONT: {e}"));
        }
        for p in FONT_PATHS {
            if let Ok(f) = register(Path::new(p)) {
                return Ok(f);
            }
        }
        let fc = std::process::Command::new("fc-match")
            .args(["-f", "%{file}", "sans-serif"])
            .output();
        if let Ok(o) = fc {
            let p = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if o.status.success() && !p.is_empty() {
                if let Ok(f) = register(Path::new(&p)) {
                    return Ok(f);
                }
            }
        }
        Err("no TrueType font for the plots' text, so no plots: install one (Debian: apt-get install fonts-dejavu-core) or point WARPFORGE_FONT at a .ttf file".to_string())
    })
    .clone()
}

fn style(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().into()
}

/// Which plot.
#[derive(Clone, Copy)]
enum Which {
    Lut4Fmax,
    Resources,
    LutsPerLane,
}

/// Draw plot `which` of `s` into `NAME.png` and `NAME.svg` of `dir`.
fn both(
    dir: &Path,
    name: &str,
    size: (u32, u32),
    which: Which,
    s: &Summary,
) -> PResult<Vec<PathBuf>> {
    let png = dir.join(format!("{name}.png"));
    let svg = dir.join(format!("{name}.svg"));
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        render(&root, which, s)?;
        root.present()?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        render(&root, which, s)?;
        root.present()?;
    }
    Ok(vec![png, svg])
}

fn render<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    which: Which,
    s: &Summary,
) -> PResult<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    match which {
        Which::Lut4Fmax => lut4_fmax(root, s),
        Which::Resources => resources(root, s),
        Which::LutsPerLane => luts_per_lane(root, s),
    }
}

fn lut4(p: &PointResult) -> Option<u64> {
    p.synth.resource("LUT4").map(|r| r.used)
}

fn mode_note(s: &Summary) -> &'static str {
    if s.estimate {
        "yosys estimate"
    } else {
        "place and route"
    }
}

/// Horizontal bars, one per point (top to bottom in the sweep's order).
fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    rows: &[(String, f64)],
) -> PResult<()>
where
    DB::ErrorType: 'static,
{
    let n = rows.len() as i32;
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max).max(1.0);
    let label_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(4) as u32 * 7 + 16;
    let mut chart = ChartBuilder::on(root)
        .caption(title, style(20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(label_w.min(600))
        .build_cartesian_2d(0.0..max * 1.18, (0..(n - 1).max(0)).into_segmented())?;
    // Row i of `rows` is drawn at y = n - 1 - i (the first at the top).
    let name_at = |y: i32| -> String {
        let i = n - 1 - y;
        if (0..n).contains(&i) {
            rows[i as usize].0.clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows.len() + 1)
        .y_label_formatter(&|y: &SegmentValue<i32>| match y {
            SegmentValue::CenterOf(y) => name_at(*y),
            _ => String::new(),
        })
        .x_label_formatter(&|v: &f64| thousands_f(*v))
        .x_desc(x_desc)
        .label_style(style(13))
        .axis_desc_style(style(15))
        .draw()?;
    chart.draw_series(rows.iter().enumerate().map(|(i, (_, v))| {
        let y = n - 1 - i as i32;
        let mut r = Rectangle::new(
            [
                (0.0, SegmentValue::Exact(y)),
                (*v, SegmentValue::Exact(y + 1)),
            ],
            Palette99::pick(i).mix(0.8).filled(),
        );
        r.set_margin(4, 4, 0, 0);
        r
    }))?;
    chart.draw_series(rows.iter().enumerate().map(|(i, (_, v))| {
        let y = n - 1 - i as i32;
        Text::new(
            format!(" {}", thousands_f(*v)),
            (*v, SegmentValue::CenterOf(y)),
            style(13).pos(Pos::new(HPos::Left, VPos::Center)),
        )
    }))?;
    Ok(())
}

/// A point's name on a bar: its id, and whether it does not fit.
fn bar_label(p: &PointResult) -> String {
    if p.synth.fits() {
        p.id.clone()
    } else {
        format!("{} (does not fit)", p.id)
    }
}

fn thousands_f(v: f64) -> String {
    if v >= 100.0 || v == v.trunc() {
        crate::synth::parse::thousands(v.round() as u64)
    } else {
        format!("{v:.1}")
    }
}

/// Plot 1: LUT4 against Fmax, each point labelled; without Fmax (the estimate, or no point
/// fits), LUT4 per point, and the title says so.
fn lut4_fmax<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> PResult<()>
where
    DB::ErrorType: 'static,
{
    let with: Vec<(&PointResult, f64, u64)> = s
        .points
        .iter()
        .filter_map(|p| Some((p, p.synth.fmax_mhz?, lut4(p)?)))
        .collect();
    if with.is_empty() {
        let why = if s.estimate {
            "estimate: no Fmax (not placed)"
        } else {
            "no point fits the device: no Fmax"
        };
        let rows: Vec<(String, f64)> = s
            .points
            .iter()
            .filter_map(|p| Some((bar_label(p), lut4(p)? as f64)))
            .collect();
        return bars(
            root,
            &format!("{}: LUT4 per point — {why}", s.base_name),
            "LUT4",
            &rows,
        );
    }
    let unplaced: Vec<&str> = s
        .points
        .iter()
        .filter(|p| p.synth.fmax_mhz.is_none())
        .map(|p| p.id.as_str())
        .collect();
    let fmax_hi = with
        .iter()
        .map(|w| w.1)
        .fold(s.freq_target_mhz.min(1e9), f64::max)
        * 1.25;
    let lut_hi = with.iter().map(|w| w.2).max().unwrap_or(1) as f64 * 1.2;
    let title = format!(
        "{}: LUT4 against Fmax ({}, {}){}",
        s.base_name,
        s.target,
        mode_note(s),
        if unplaced.is_empty() {
            String::new()
        } else {
            format!(" — {} not placed (do not fit): not shown", unplaced.len())
        }
    );
    let mut chart = ChartBuilder::on(root)
        .caption(title, style(20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..fmax_hi, 0.0..lut_hi)?;
    chart
        .configure_mesh()
        .x_desc("Fmax (MHz)")
        .y_desc("LUT4")
        .label_style(style(13))
        .axis_desc_style(style(15))
        .y_label_formatter(&|v: &f64| thousands_f(*v))
        .draw()?;
    let target = s.freq_target_mhz;
    chart
        .draw_series(LineSeries::new(
            [(target, 0.0), (target, lut_hi)],
            RED.mix(0.6).stroke_width(1),
        ))?
        .label(format!("clock constraint {target} MHz"))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], RED.mix(0.6)));
    chart.draw_series(with.iter().enumerate().map(|(i, (p, f, l))| {
        EmptyElement::at((*f, *l as f64))
            + Circle::new((0, 0), 5, Palette99::pick(i).filled())
            + Text::new(p.id.clone(), (8, -6), style(13))
    }))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(style(13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}

/// The other varied fields of a point, as the name of its series in a field's plot.
fn series_of(p: &PointResult, field: &str) -> String {
    let rest: Vec<String> = p
        .params
        .iter()
        .filter(|q| q.field != field)
        .map(|q| format!("{}={}", q.field, q.value))
        .collect();
    if rest.is_empty() {
        "all points".into()
    } else {
        rest.join(",")
    }
}

/// Plot 2: each resource (rows) against each varied field (columns); the points that differ
/// only in that field are joined by a line.
fn resources<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> PResult<()>
where
    DB::ErrorType: 'static,
{
    let names = super::output::resource_names(s);
    let root = root.titled(
        &format!(
            "{}: resources against each varied field ({}){}",
            s.base_name,
            mode_note(s),
            if s.points.iter().any(|p| !p.synth.fits()) {
                "; hollow: does not fit"
            } else {
                ""
            }
        ),
        style(20),
    )?;
    let cells = root.split_evenly((names.len().max(1), s.vary.len().max(1)));
    for (r, name) in names.iter().enumerate() {
        for (c, (field, values)) in s.vary.iter().enumerate() {
            let area = &cells[r * s.vary.len() + c];
            let n = values.len() as i32;
            let pts: Vec<(&PointResult, i32, u64)> = s
                .points
                .iter()
                .filter_map(|p| {
                    let v = p.value(field)?;
                    let x = values.iter().position(|w| w == v)? as i32;
                    Some((p, x, p.synth.resource(name)?.used))
                })
                .collect();
            let hi = pts.iter().map(|p| p.2).max().unwrap_or(0).max(1) as f64 * 1.15;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{name} vs {field}"), style(15))
                .margin(8)
                .x_label_area_size(32)
                .y_label_area_size(64)
                .build_cartesian_2d(-1..n, 0.0..hi)?;
            chart
                .configure_mesh()
                .x_labels((n + 2) as usize)
                .x_label_formatter(&|x: &i32| {
                    values
                        .get(usize::try_from(*x).unwrap_or(usize::MAX))
                        .cloned()
                        .unwrap_or_default()
                })
                .y_label_formatter(&|v: &f64| thousands_f(*v))
                .x_desc(field.as_str())
                .label_style(style(11))
                .axis_desc_style(style(12))
                .draw()?;
            // (series name, its points (x, used, fits)), in the sweep's order.
            let mut series: Vec<(String, Vec<SeriesPoint>)> = Vec::new();
            for (p, x, used) in &pts {
                let name = series_of(p, field);
                let at = match series.iter().position(|s| s.0 == name) {
                    Some(i) => i,
                    None => {
                        series.push((name, Vec::new()));
                        series.len() - 1
                    }
                };
                series[at].1.push((*x, *used as f64, p.synth.fits()));
            }
            let legend = series.len() > 1 && series.len() <= 8 && r == 0;
            for (i, (label, mut line)) in series.into_iter().enumerate() {
                line.sort_by_key(|p| p.0);
                let color = Palette99::pick(i).to_rgba();
                let drawn = chart.draw_series(LineSeries::new(
                    line.iter().map(|&(x, y, _)| (x, y)),
                    color.stroke_width(2),
                ))?;
                if legend {
                    drawn.label(label).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 14, y)], color.stroke_width(2))
                    });
                }
                // A point that does not fit the device: a hollow circle.
                chart.draw_series(line.iter().map(|&(x, y, fits)| {
                    Circle::new(
                        (x, y),
                        4,
                        if fits { color.filled() } else { WHITE.filled() },
                    )
                }))?;
                chart.draw_series(
                    line.iter()
                        .map(|&(x, y, _)| Circle::new((x, y), 4, color.stroke_width(2))),
                )?;
            }
            if legend {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font(style(10))
                    .position(SeriesLabelPosition::UpperLeft)
                    .draw()?;
            }
        }
    }
    Ok(())
}

/// Plot 3: LUT4 per lane, one bar per point.
fn luts_per_lane<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> PResult<()>
where
    DB::ErrorType: 'static,
{
    let rows: Vec<(String, f64)> = s
        .points
        .iter()
        .filter_map(|p| Some((bar_label(p), p.luts_per_lane?)))
        .collect();
    bars(
        root,
        &format!(
            "{}: LUT4 per lane, LUT4 / (SMs x lanes) ({})",
            s.base_name,
            mode_note(s)
        ),
        "LUT4 per lane",
        &rows,
    )
}

/// Write the three plots as PNG and SVG into `dir`; the files.
pub fn write_plots(dir: &Path, s: &Summary) -> PResult<Vec<PathBuf>> {
    font().map_err(PlotError::NoFont)?;
    let n = s.points.len() as u32;
    let bars_h = 120 + 26 * n.max(2);
    let rows = super::output::resource_names(s).len().max(1) as u32;
    let cols = s.vary.len().max(1) as u32;
    let has_fmax = s.points.iter().any(|p| p.synth.fmax_mhz.is_some());
    let mut files = Vec::new();
    files.extend(both(
        dir,
        "lut4-fmax",
        if has_fmax {
            (1000, 700)
        } else {
            (1000, bars_h)
        },
        Which::Lut4Fmax,
        s,
    )?);
    files.extend(both(
        dir,
        "resources",
        ((440 * cols).max(720) + 20, 260 * rows + 50),
        Which::Resources,
        s,
    )?);
    files.extend(both(
        dir,
        "luts-per-lane",
        (1000, bars_h),
        Which::LutsPerLane,
        s,
    )?);
    Ok(files)
}
