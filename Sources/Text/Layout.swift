/// A glyph of a laid-out line: which glyph, and its pen x relative to the line's origin in pixels.
public struct PositionedGlyph: Sendable, Equatable {
    /// FreeType glyph index in the line's face, or `FontFace.missingGlyph`.
    public var glyph: UInt32
    public var x: Double

    public init(glyph: UInt32, x: Double) {
        self.glyph = glyph
        self.x = x
    }
}

/// A string laid out in one font: glyphs with pen positions, and its metrics. Keep one when the same
/// label is drawn every frame to skip the (cheap) layout; `TextRenderer.draw(_:…)` takes it.
public struct TextLine {
    public let font: Font
    public let glyphs: [PositionedGlyph]
    public let metrics: TextMetrics
}

extension Font {
    /// Lays out `text` on one line. Invalid UTF-8 cannot reach here (a `String` is always valid);
    /// decode bytes with `String(decoding: bytes, as: UTF8.self)`, which turns every invalid
    /// sequence into U+FFFD, and that is drawn like any other character.
    public func layout(_ text: String) -> TextLine {
        var glyphs: [PositionedGlyph] = []
        glyphs.reserveCapacity(text.utf8.count)
        let width = forEachGlyph(in: text) { glyph, x in glyphs.append(PositionedGlyph(glyph: glyph, x: x)) }
        return TextLine(font: self, glyphs: glyphs, metrics: TextMetrics(width: width, ascent: ascent, descent: descent))
    }

    /// Width (sum of advances, kerning, tabular digits), ascent and descent of `text`. Makes no
    /// FreeType call once the characters have been seen in this face.
    public func measure(_ text: String) -> TextMetrics {
        TextMetrics(width: forEachGlyph(in: text) { _, _ in }, ascent: ascent, descent: descent)
    }

    /// Calls `place` with each glyph and its pen x (pixels from the line origin) and returns the
    /// advance width. The single layout loop behind measure, layout and draw, so they always agree.
    ///
    /// No shaping: one glyph per Unicode scalar, left to right. C0/C1 control characters advance
    /// nothing and draw nothing. The pen is kept in integer font units, so long strings do not drift.
    @inline(__always)
    func forEachGlyph(in text: String, _ place: (_ glyph: UInt32, _ x: Double) -> Void) -> Double {
        let face = self.face
        var pen = 0  // font units
        var previous = FontFace.missingGlyph
        var previousIsDigit = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (value >= 0x7F && value < 0xA0) { continue }
            let info = face.glyphInfo(for: scalar)
            let isDigit = value &- 0x30 < 10
            // With tabular digits a kern next to a digit would make the label breathe as values change.
            if kerning, previous != FontFace.missingGlyph, !(tabularDigits && (isDigit || previousIsDigit)) {
                pen += Int(face.kerning(previous, info.index))
            }
            if tabularDigits && isDigit {
                // Centre the digit in the cell of the widest digit, as fonts with a `tnum` feature do.
                let cell = Int(face.tabularDigitAdvance)
                place(info.index, (Double(pen) + Double(cell - Int(info.advance)) / 2) * scale)
                pen += cell
            } else {
                place(info.index, Double(pen) * scale)
                pen += Int(info.advance)
            }
            previous = info.index
            previousIsDigit = isDigit
        }
        return Double(pen) * scale
    }

    /// Distance from the anchor's y down to the baseline for a vertical alignment.
    func baselineOffset(_ vertical: TextAlignment.Vertical) -> Double {
        switch vertical {
        case .baseline: return 0
        case .top: return ascent
        case .middle: return (ascent - descent) / 2
        case .bottom: return -descent
        }
    }
}
