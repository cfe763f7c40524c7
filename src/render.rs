//! PNG pictures of positions: the SVG of [`crate::notation::svg`] rasterised with resvg
//! (pure Rust), one image pixel per SVG user unit, or `scale` pixels per unit
//! ([`svg_to_png_scaled`], [`png_styled`]: Gygax Chess's 996×240 picture at scale 2 is
//! 1992×480).
//!
//! Text (piece labels, coordinates, level names) needs a font: [`Fonts::System`] loads the
//! system's fonts (fontconfig's directories) and uses the first of a few common sans-serif
//! families it finds (DejaVu Sans, Liberation Sans, Noto Sans, Arial), else any family
//! at all. With no font installed the text is left out and everything else (squares,
//! discs, outlines) is still drawn; this is not an error.

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

use crate::engine::{Move, Position, Variant};

/// Sans-serif families preferred for text, in order.
pub const PREFERRED_FAMILIES: &[&str] = &["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial"];

/// Which fonts the rasteriser may use for text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fonts {
    /// The system's fonts (none installed: no text).
    System,
    /// No fonts: text is left out.
    None,
}

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The SVG text could not be parsed.
    #[error("the SVG could not be read: {0}")]
    Svg(String),
    /// The SVG's size is zero or too large for an image.
    #[error("the picture's size ({width}×{height} pixels) cannot be rasterised")]
    Size {
        /// Width in pixels (rounded up).
        width: u32,
        /// Height in pixels (rounded up).
        height: u32,
    },
    /// A scale that is not a number from [`MIN_SCALE`] to [`MAX_SCALE`].
    #[error(
        "scale {scale}: a PNG is drawn at a scale from {MIN_SCALE} to {MAX_SCALE} (1: one pixel per SVG unit)"
    )]
    Scale {
        /// The scale asked for.
        scale: f32,
    },
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Png(String),
}

/// Rasterises `svg` (an SVG document) to PNG bytes (8-bit RGBA), its width and height in
/// pixels being the SVG's `width` and `height` rounded up.
///
/// # Errors
/// [`RenderError`]: unreadable SVG, a zero or oversized picture, or a PNG encoder failure.
pub fn svg_to_png(svg: &str, fonts: Fonts) -> Result<Vec<u8>, RenderError> {
    svg_to_png_scaled(svg, fonts, 1.0)
}

/// The smallest scale [`svg_to_png_scaled`] draws at.
pub const MIN_SCALE: f32 = 0.25;
/// The largest scale [`svg_to_png_scaled`] draws at.
pub const MAX_SCALE: f32 = 8.0;

/// As [`svg_to_png`], at `scale` pixels per SVG unit: the image is the SVG's `width` and
/// `height` times `scale`, rounded up.
///
/// # Errors
/// As [`svg_to_png`], and [`RenderError::Scale`] outside [`MIN_SCALE`]..=[`MAX_SCALE`].
pub fn svg_to_png_scaled(svg: &str, fonts: Fonts, scale: f32) -> Result<Vec<u8>, RenderError> {
    if !(MIN_SCALE..=MAX_SCALE).contains(&scale) {
        return Err(RenderError::Scale { scale });
    }
    let mut options = usvg::Options::default();
    if fonts == Fonts::System {
        let db = options.fontdb_mut();
        db.load_system_fonts();
        let family = PREFERRED_FAMILIES
            .iter()
            .find(|f| db.faces().any(|face| face.families.iter().any(|(n, _)| n == *f)))
            .map(|f| f.to_string())
            .or_else(|| db.faces().find_map(|face| face.families.first().map(|(n, _)| n.clone())));
        if let Some(family) = family {
            db.set_sans_serif_family(family.clone());
            options.font_family = family;
        }
    }
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| RenderError::Svg(e.to_string()))?;
    let size = tree.size();
    let (width, height) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    let mut pixmap = Pixmap::new(width, height).ok_or(RenderError::Size { width, height })?;
    resvg::render(&tree, Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| RenderError::Png(e.to_string()))
}

/// Draws `pos` as a PNG (the picture [`crate::notation::svg::svg`] describes); `last`
/// outlines the last move's squares.
///
/// # Errors
/// As [`svg_to_png`].
pub fn png(v: &Variant, pos: &Position, last: Option<&Move>, fonts: Fonts) -> Result<Vec<u8>, RenderError> {
    svg_to_png(&crate::notation::svg::svg(v, pos, last), fonts)
}

/// Draws `pos` as [`crate::notation::svg::svg_styled`] describes it (flipped, captioned),
/// as a PNG at `scale` pixels per SVG unit.
///
/// # Errors
/// As [`svg_to_png_scaled`].
pub fn png_styled(
    v: &Variant,
    pos: &Position,
    last: Option<&Move>,
    style: &crate::notation::svg::PictureStyle,
    fonts: Fonts,
    scale: f32,
) -> Result<Vec<u8>, RenderError> {
    svg_to_png_scaled(&crate::notation::svg::svg_styled(v, pos, last, style), fonts, scale)
}
