// Text: Tickerboard's text. FreeType turns glyph outlines into grey anti-aliased coverage masks once
// per (face, glyph, pixel size, quarter-pixel x phase); an LRU cache keeps them, so redrawing a label
// while the user scrubs costs no FreeType call. On top of that: font lookup (DejaVu Sans by default),
// single-line layout with kerning and tabular digits, measuring and alignment, compositing into a
// `Raster.PixelBuffer`, and the price/change/percent number formatter.
//
// Everything here is single-threaded by design (the daemon runs one epoll loop): faces, caches and
// renderers are plain non-Sendable classes and must stay on the thread that made them.
//
// Files: TextError (typed errors), FontFace (FT_Library/FT_Face owner, layout data in font units),
// FontLocator (finding font files, FontSet), Font (a face at a pixel size), Layout (the one glyph
// loop behind measure/layout/draw), GlyphCache (the LRU of masks), TextRenderer (drawing, ink bounds),
// Compositing (the SIMD mask blend), PriceFormat (numbers), Currency (ISO 4217 symbols and minor
// units), NumberLocale (the CLDR-checked locale table), SceneText (SCENE.md §5 text).

import Raster

/// Where a piece of text sits relative to the point it is drawn at.
public struct TextAlignment: Sendable, Equatable, Hashable {
    /// Which part of the line's advance width lies on the anchor's x.
    public enum Horizontal: Sendable, Equatable, Hashable {
        /// The pen starts at x.
        case left
        /// The middle of the advance width is at x.
        case center
        /// The pen ends at x.
        case right
    }

    /// Which horizontal line of the text lies on the anchor's y.
    public enum Vertical: Sendable, Equatable, Hashable {
        /// The baseline is at y (what cairo's `move_to` + `show_text` does).
        case baseline
        /// The font's ascent line is at y: the text hangs below y.
        case top
        /// Halfway between the ascent and descent lines is at y (labels centred in a button).
        case middle
        /// The font's descent line is at y: the text sits on y.
        case bottom
    }

    public var horizontal: Horizontal
    public var vertical: Vertical

    public init(_ horizontal: Horizontal = .left, _ vertical: Vertical = .baseline) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public static let baselineLeft = TextAlignment(.left, .baseline)
    public static let baselineCenter = TextAlignment(.center, .baseline)
    public static let baselineRight = TextAlignment(.right, .baseline)
    public static let topLeft = TextAlignment(.left, .top)
    public static let topCenter = TextAlignment(.center, .top)
    public static let topRight = TextAlignment(.right, .top)
}

/// The size of a line of text in pixels. Ascent and descent are the font's (the same for every string
/// in one font), so labels in one font share a baseline whatever their letters.
public struct TextMetrics: Sendable, Equatable {
    /// Sum of the advances (with kerning and tabular digits): where the next line would start.
    public var width: Double
    /// Distance from the baseline up to the font's ascent line (positive).
    public var ascent: Double
    /// Distance from the baseline down to the font's descent line (positive).
    public var descent: Double

    public init(width: Double, ascent: Double, descent: Double) {
        self.width = width
        self.ascent = ascent
        self.descent = descent
    }

    /// `ascent + descent`.
    public var height: Double { ascent + descent }
}
