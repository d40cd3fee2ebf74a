//! The picture of a sweep, drawn like seed 003's Figure 2: one square cell per point,
//! coloured by the result (points left out by `--where` blank), the first variable along the horizontal axis (increasing to the
//! right), the second along the vertical axis (increasing upwards), axes labelled with the
//! variables and their values, and a legend.
//!
//! Where the cells are is written into the PNG as a `tEXt` chunk with the keyword
//! `gamelang-grid`: `x0=… y0=… cell=… columns=… rows=…`, (x0, y0) being the top-left pixel
//! of the cell area; the cell of column i and row j (both from 0, row 0 at the bottom) has
//! its top-left corner at (x0 + i·cell, y0 + (rows − 1 − j)·cell).

use super::grid::{Grid, Values, PENDING, SKIPPED};
use std::io::BufWriter;
use std::path::Path;

type Rgb = [u8; 3];

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [30, 30, 30];
const FRAME: Rgb = [90, 90, 90];
/// Benny's wins, as in the seed's figure.
pub const BLUE: Rgb = [31, 90, 200];
/// Rebecca's wins.
pub const PALE: Rgb = [250, 240, 215];
pub const GREY: Rgb = [150, 150, 150];
const MISSING: Rgb = [255, 0, 255];

/// A categorical palette for results other than winners and Booleans.
const PALETTE: [Rgb; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// How results become colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    /// A colour per distinct result (winners, Booleans, a few numbers), or a gradient when
    /// the results are many integers.
    Categories,
    /// Numbers (a chance sweep's probability or expected score: the decimal, its first
    /// field), shaded from pale (the least) to dark blue (the greatest), the legend
    /// giving the numbers: a fixed scale from 0 to 1 would leave most sweeps one colour.
    Scale,
}

/// The decimal a result starts with (a chance sweep's result is `decimal SEP exact`).
fn decimal(name: &str) -> Option<f64> {
    super::chance::decimal(name).filter(|x| x.is_finite())
}

/// The colour of each result value (indexed like `values.names`) and the legend: colours
/// with their labels.
fn shades(values: &Values, shading: Shading, result_name: &str) -> (Vec<Rgb>, Vec<(Rgb, String)>) {
    let (lo, hi) = match shading {
        Shading::Categories => {
            let colours = colours(values);
            let legend = super::boundary::value_order(values)
                .iter()
                .map(|v| {
                    (
                        colours[*v as usize],
                        legend_text(values.name(*v), result_name),
                    )
                })
                .collect();
            return (colours, legend);
        }
        Shading::Scale => {
            let xs = values.names.iter().filter_map(|n| decimal(n));
            let lo = xs.clone().fold(f64::INFINITY, f64::min);
            let hi = xs.fold(f64::NEG_INFINITY, f64::max);
            if lo > hi {
                (0.0, 1.0)
            } else {
                (lo, hi)
            }
        }
    };
    let t = |x: f64| {
        if hi > lo {
            ((x - lo) / (hi - lo)).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let colours = values
        .names
        .iter()
        .map(|n| decimal(n).map_or(MISSING, |x| gradient(t(x))))
        .collect();
    let legend = (0..=4)
        .map(|k| {
            let x = lo + (hi - lo) * k as f64 / 4.0;
            (gradient(t(x)), format!("{}", (x * 1e4).round() / 1e4))
        })
        .collect();
    (colours, legend)
}

/// The colour of each result value (indexed like `values.names`).
pub fn colours(values: &Values) -> Vec<Rgb> {
    let mut next = 0;
    let ints: Option<Vec<i64>> = values.names.iter().map(|n| n.parse::<i64>().ok()).collect();
    let special = |n: &str| match n {
        "B" | "true" => Some(BLUE),
        "R" | "false" => Some(PALE),
        "draw" => Some(GREY),
        _ => None,
    };
    if let Some(ints) = ints.filter(|v| v.len() > PALETTE.len()) {
        // Many integers: a gradient from pale to dark blue by value.
        let (lo, hi) = (
            *ints.iter().min().expect("non-empty"),
            *ints.iter().max().expect("non-empty"),
        );
        return ints
            .iter()
            .map(|&v| {
                let t = if hi == lo {
                    0.0
                } else {
                    (v - lo) as f64 / (hi - lo) as f64
                };
                gradient(t)
            })
            .collect();
    }
    values
        .names
        .iter()
        .map(|n| {
            special(n).unwrap_or_else(|| {
                let c = PALETTE[next % PALETTE.len()];
                next += 1;
                c
            })
        })
        .collect()
}

fn gradient(t: f64) -> Rgb {
    let (a, b) = ([250.0, 240.0, 215.0], [20.0, 50.0, 140.0]);
    let mix = |i: usize| (a[i] + (b[i] - a[i]) * t).round() as u8;
    [mix(0), mix(1), mix(2)]
}

struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Canvas {
        Canvas {
            w,
            h,
            px: WHITE.repeat(w * h),
        }
    }

    fn set(&mut self, x: usize, y: usize, c: Rgb) {
        if x < self.w && y < self.h {
            let i = (y * self.w + x) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    fn rect(&mut self, x: usize, y: usize, w: usize, h: usize, c: Rgb) {
        for yy in y..(y + h).min(self.h) {
            for xx in x..(x + w).min(self.w) {
                self.set(xx, yy, c);
            }
        }
    }

    fn outline(&mut self, x: usize, y: usize, w: usize, h: usize, c: Rgb) {
        self.rect(x, y, w, 1, c);
        self.rect(x, y + h - 1, w, 1, c);
        self.rect(x, y, 1, h, c);
        self.rect(x + w - 1, y, 1, h, c);
    }

    /// Text in the 8×8 font, scaled by `s`, top-left at (x, y).
    fn text(&mut self, x: usize, y: usize, s: usize, text: &str, c: Rgb) {
        for (k, row, col) in lit_pixels(text) {
            self.rect(x + (k * 8 + col) * s, y + row * s, s, s, c);
        }
    }

    /// Text rotated a quarter turn anticlockwise (read bottom to top), its glyphs' tops to
    /// the left; (x, y) is the bottom-left corner of the rotated text.
    fn text_up(&mut self, x: usize, y: usize, s: usize, text: &str, c: Rgb) {
        for (k, row, col) in lit_pixels(text) {
            let py = (y + 1).saturating_sub((k * 8 + col + 1) * s);
            self.rect(x + row * s, py, s, s, c);
        }
    }
}

/// Tick values for an axis of `n` values from `lo`: a step of 1, 2 or 5 × 10^k leaving
/// at least `room` pixels between labels.
fn ticks(lo: i64, n: usize, cell: usize, room: usize) -> Vec<i64> {
    let hi = lo + n as i64 - 1;
    let mut k = 0u32;
    let step = loop {
        let step = [1i64, 2, 5][(k % 3) as usize] * 10i64.pow(k / 3);
        if (step as usize).saturating_mul(cell) >= room || step >= n as i64 {
            break step;
        }
        k += 1;
    };
    let first = lo.div_euclid(step) * step;
    let mut out: Vec<i64> = (0..)
        .map(|i| first + i * step)
        .take_while(|v| *v <= hi)
        .filter(|v| *v >= lo)
        .collect();
    // Always label the first value (1 in a 1..100 sweep), unless it crowds the next.
    if out.first() != Some(&lo)
        && out
            .first()
            .is_none_or(|v| ((v - lo) as usize) * cell >= room)
    {
        out.insert(0, lo);
    }
    out
}

/// Draw the sweep (one or two variables) and write it to `path`.
pub fn draw(
    path: &Path,
    grid: &Grid,
    results: &[u32],
    values: &Values,
    title: &str,
    result_name: &str,
    shading: Shading,
) -> Result<(), String> {
    let nvars = grid.ranges.len();
    if nvars == 0 || nvars > 2 {
        return Err(format!(
            "a picture needs one or two variables; this sweep has {nvars}"
        ));
    }
    let cols = grid.ranges[0].len();
    let rows = if nvars == 2 { grid.ranges[1].len() } else { 1 };
    let longest = cols.max(rows);
    let cell = (800 / longest).clamp(1, 16);
    let (gw, gh) = (cols * cell, rows * cell);
    let s = if gw.max(gh) >= 500 { 2 } else { 1 };
    let glyph = 8 * s;
    let (colours, legend) = shades(values, shading, result_name);

    // Label widths.
    let ylabels: Vec<i64> = if nvars == 2 {
        ticks(grid.ranges[1].lo, rows, cell, glyph * 2)
    } else {
        Vec::new()
    };
    let ylabel_w = ylabels
        .iter()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(0)
        * glyph;
    let margin = 2 * glyph;
    let x0 = margin + glyph + glyph / 2 + ylabel_w + glyph;
    let y0 = margin + glyph + glyph;
    // Legend to the right of the grid.
    let legend_w = legend
        .iter()
        .map(|(_, t)| t.chars().count())
        .max()
        .unwrap_or(0)
        .min(40)
        * glyph
        + 3 * glyph;
    let w = x0 + gw + 2 * glyph + legend_w + margin;
    let h = (y0 + gh + glyph * 4 + margin).max(y0 + legend.len() * glyph * 2 + margin);
    let mut c = Canvas::new(w, h);

    c.text(margin, margin / 2, s, title, INK);
    // Cells.
    for i in 0..cols {
        for j in 0..rows {
            let r = results[i * rows + j];
            let col = match r {
                PENDING => MISSING,
                SKIPPED => WHITE,
                _ => colours[r as usize],
            };
            c.rect(x0 + i * cell, y0 + (rows - 1 - j) * cell, cell, cell, col);
        }
    }
    c.outline(x0 - 1, y0 - 1, gw + 2, gh + 2, FRAME);
    // Horizontal axis: the first variable.
    let xr = &grid.ranges[0];
    let widest = xr.lo.to_string().len().max(xr.hi.to_string().len());
    for v in ticks(xr.lo, cols, cell, glyph * (widest + 1)) {
        let cx = x0 + (v - xr.lo) as usize * cell + cell / 2;
        c.rect(cx, y0 + gh + 1, 1, glyph / 2, FRAME);
        let t = v.to_string();
        let tw = t.len() * glyph;
        c.text(cx.saturating_sub(tw / 2), y0 + gh + glyph, s, &t, INK);
    }
    let name_w = xr.name.len() * glyph;
    c.text(
        x0 + gw / 2 - name_w.min(gw) / 2,
        y0 + gh + glyph * 2 + glyph / 2,
        s,
        &xr.name,
        INK,
    );
    // Vertical axis: the second variable.
    if nvars == 2 {
        let yr = &grid.ranges[1];
        for v in &ylabels {
            let cy = y0 + (rows - 1 - (v - yr.lo) as usize) * cell + cell / 2;
            c.rect(x0 - 1 - glyph / 2, cy, glyph / 2, 1, FRAME);
            let t = v.to_string();
            c.text(
                x0 - glyph - t.len() * glyph,
                cy.saturating_sub(glyph / 2),
                s,
                &t,
                INK,
            );
        }
        let name_h = yr.name.len() * glyph;
        c.text_up(margin, y0 + gh / 2 + name_h.min(gh) / 2, s, &yr.name, INK);
    }
    // Legend.
    let lx = x0 + gw + 2 * glyph;
    for (k, (colour, text)) in legend.iter().enumerate() {
        let y = y0 + k * glyph * 2;
        c.rect(lx, y, glyph, glyph, *colour);
        c.outline(lx, y, glyph, glyph, FRAME);
        let mut t = text.clone();
        if t.chars().count() > 40 {
            t = t.chars().take(39).collect::<String>() + "~";
        }
        c.text(lx + glyph + glyph / 2, y, s, &t, INK);
    }

    let err = |e: &dyn std::fmt::Display| format!("cannot write `{}`: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.add_text_chunk(
        "gamelang-grid".into(),
        format!("x0={x0} y0={y0} cell={cell} columns={cols} rows={rows}"),
    )
    .map_err(|e| err(&e))?;
    enc.add_text_chunk("Title".into(), title.into())
        .map_err(|e| err(&e))?;
    let mut writer = enc.write_header().map_err(|e| err(&e))?;
    writer.write_image_data(&c.px).map_err(|e| err(&e))?;
    writer.finish().map_err(|e| err(&e))
}

fn legend_text(value: &str, result_name: &str) -> String {
    match (result_name, value) {
        ("winner", "B") => "B (Benny) wins".into(),
        ("winner", "R") => "R (Rebecca) wins".into(),
        ("winner", "draw") => "draw".into(),
        _ => value.to_string(),
    }
}

/// The lit pixels of `text` in the 8×8 font: (character index, glyph row, glyph column).
/// Characters outside ASCII are drawn as `?`.
fn lit_pixels(text: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    text.chars().enumerate().flat_map(|(k, ch)| {
        let code = if ch.is_ascii() {
            ch as usize
        } else {
            b'?' as usize
        };
        let glyph = font8x8::legacy::BASIC_LEGACY[code];
        (0..8).flat_map(move |row| {
            (0..8)
                .filter(move |&col| glyph[row] >> col & 1 == 1)
                .map(move |col| (k, row, col))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_steps_are_round() {
        assert_eq!(ticks(1, 10, 20, 16), vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let t = ticks(1, 100, 8, 32);
        assert_eq!(t[0], 1);
        assert!(t.contains(&10) && t.contains(&100), "{t:?}");
        let t = ticks(1, 1000, 1, 40);
        assert!(t.contains(&100), "{t:?}");
    }
}
