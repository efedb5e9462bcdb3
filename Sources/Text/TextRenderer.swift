import Raster

/// Draws text into pixel buffers through a glyph cache. One renderer (and so one cache) per display
/// is the intended use: every label shares the masks.
public final class TextRenderer {
    public let cache: GlyphCache

    public init(cache: GlyphCache = GlyphCache()) {
        self.cache = cache
    }

    /// Draws `text` in `font` and `color` with its anchor at (`x`, `y`), writing only inside `clip`
    /// (and the buffer). Returns the rectangle of pixels touched (the damage), empty if none.
    ///
    /// The pen x is placed at a quarter pixel (or a whole pixel, per `font.positioning`); the baseline
    /// is rounded to a whole row. Rendering happens only on cache misses.
    @discardableResult
    public func draw(_ text: String, font: Font, color: Color, x: Double, y: Double,
                     alignment: TextAlignment = .baselineLeft, into buffer: inout PixelBuffer,
                     clip: IntRect? = nil) -> IntRect {
        var originX = x
        if alignment.horizontal != .left {
            let width = font.forEachGlyph(in: text) { _, _ in }
            originX -= alignment.horizontal == .center ? width / 2 : width
        }
        return place(font: font, color: color, originX: originX, baseline: y + font.baselineOffset(alignment.vertical),
                     buffer: &buffer, clip: clip) { body in _ = font.forEachGlyph(in: text, body) }
    }

    /// Draws a line laid out earlier with `Font.layout(_:)`; otherwise as `draw(_:font:…)`.
    @discardableResult
    public func draw(_ line: TextLine, color: Color, x: Double, y: Double, alignment: TextAlignment = .baselineLeft,
                     into buffer: inout PixelBuffer, clip: IntRect? = nil) -> IntRect {
        let shift = alignment.horizontal == .left ? 0 : alignment.horizontal == .center ? line.metrics.width / 2
            : line.metrics.width
        return place(font: line.font, color: color, originX: x - shift,
                     baseline: y + line.font.baselineOffset(alignment.vertical), buffer: &buffer, clip: clip) { body in
            for g in line.glyphs { body(g.glyph, g.x) }
        }
    }

    /// The pixels `draw` would touch with the same arguments (without clipping), without drawing.
    /// Renders (and caches) any glyph not seen yet. For damage tracking before a label changes.
    public func inkBounds(of text: String, font: Font, x: Double, y: Double,
                          alignment: TextAlignment = .baselineLeft) -> IntRect {
        var originX = x
        if alignment.horizontal != .left {
            let width = font.forEachGlyph(in: text) { _, _ in }
            originX -= alignment.horizontal == .center ? width / 2 : width
        }
        guard let row = Self.baselineRow(originX, y + font.baselineOffset(alignment.vertical)) else { return .empty }
        var ink = IntRect.empty
        _ = font.forEachGlyph(in: text) { glyph, gx in
            let (column, phase) = Self.column(originX + gx, font.positioning)
            let g = cache.glyph(glyph, font: font, phase: phase)
            ink = ink.union(IntRect(x: column + g.left, y: row - g.top, width: g.mask.width, height: g.mask.height))
        }
        return ink
    }

    /// Shared draw loop: `glyphs` calls its argument once per positioned glyph.
    @inline(__always)
    private func place(font: Font, color: Color, originX: Double, baseline: Double, buffer: inout PixelBuffer,
                       clip: IntRect?, glyphs: ((UInt32, Double) -> Void) -> Void) -> IntRect {
        let area = (clip ?? buffer.bounds).intersection(buffer.bounds)
        guard !area.isEmpty, color.alpha != 0, let row = Self.baselineRow(originX, baseline) else { return .empty }
        let source = (buffer.dimming?.apply(color) ?? color).premultiplied
        let stride = buffer.stride
        let cache = self.cache
        var damage = IntRect.empty
        buffer.pixels.withUnsafeMutableBufferPointer { pixels in
            glyphs { glyph, gx in
                let (column, phase) = Self.column(originX + gx, font.positioning)
                let g = cache.glyph(glyph, font: font, phase: phase)
                let x0 = column + g.left, y0 = row - g.top
                let target = IntRect(x: x0, y: y0, width: g.mask.width, height: g.mask.height).intersection(area)
                guard !target.isEmpty else { return }
                composite(g, x: x0, y: y0, in: target, into: pixels.baseAddress!, stride: stride, source: source)
                damage = damage.union(target)
            }
        }
        return damage
    }

    /// Coordinates beyond this are refused rather than converted to `Int` (which would trap); no
    /// buffer is that large, so nothing visible is lost.
    private static let coordinateLimit = Double(1 << 40)

    /// The baseline row (rounded like cairo: half up), or nil if the anchor is absurd.
    @inline(__always)
    private static func baselineRow(_ x: Double, _ baseline: Double) -> Int? {
        guard abs(x) < coordinateLimit, abs(baseline) < coordinateLimit else { return nil }  // also rejects NaN
        return Int((baseline + 0.5).rounded(.down))
    }

    /// The whole-pixel pen column and quarter-pixel phase (0...3) of a pen x.
    @inline(__always)
    private static func column(_ pen: Double, _ positioning: GlyphPositioning) -> (Int, Int) {
        switch positioning {
        case .subpixel:
            let quarters = Int((pen * 4 + 0.5).rounded(.down))
            return (quarters >> 2, quarters & 3)  // arithmetic shift floors negative pens too
        case .wholePixel:
            return (Int((pen + 0.5).rounded(.down)), 0)
        }
    }
}

extension IntRect {
    static let empty = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
}
