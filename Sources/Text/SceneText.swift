import Raster

/// The optional text of the reference scene (shared/bench/SCENE.md §5, `scene_text_items` in
/// scene.h): axis labels, the range button and the price label, 40 glyphs at 24·s px and 7 at 64·s px
/// in DejaVu Sans, colour #E6EDF3, baseline-left anchors. `tickerboard bench --mode text` times
/// `draw(into:)`; keep one instance so the glyph cache stays warm between frames.
public final class SceneText {
    /// One label: string, pixel size, baseline-left anchor.
    public struct Item: Sendable, Equatable {
        public var text: String
        public var pixelSize: Double
        public var x: Double
        public var y: Double
    }

    /// `SCENE_TEXT_ARGB`.
    public static let color = Color(rgb: 0xE6EDF3)
    /// Glyphs drawn per frame (the `n` of the bench's RESULT line).
    public static let glyphCount = 47

    public let face: FontFace
    public let renderer: TextRenderer
    /// How glyph origins snap. cairo 1.16 (the reference PNG's engine) rounds them to whole pixels,
    /// so the default matches it; `.subpixel` is what the daemon's own labels use.
    public var positioning: GlyphPositioning
    /// cairo's `show_text` does not kern, so the reference does not either; DejaVu Sans has no kern
    /// pairs among these strings anyway (a test checks), so this only matters for other fonts.
    public var kerning: Bool
    /// The items of the last canvas size drawn, so a frame allocates nothing.
    private var layout: (width: Int, height: Int, items: [Item])?

    public init(face: FontFace, renderer: TextRenderer = TextRenderer(), positioning: GlyphPositioning = .wholePixel,
                kerning: Bool = false) {
        self.face = face
        self.renderer = renderer
        self.positioning = positioning
        self.kerning = kerning
    }

    /// Loads the scene's font: `fontPath` (the bench's `--font`), else DejaVu Sans.
    public convenience init(fontPath: String? = nil) throws(TextError) {
        self.init(face: try FontFace(path: FontLocator.path(for: .regular, explicit: fontPath)))
    }

    /// The ten labels for a `width`×`height` canvas, computed exactly as scene.h does (same
    /// operations in the same order, so the anchors are bit-identical).
    public static func items(width: Int, height: Int) -> [Item] {
        let s = Double(width) / 1920.0
        let left = 80.0 * s
        let right = Double(width) - 80.0 * s
        let top = 60.0 * s
        let bottom = Double(height) - 60.0 * s
        let yHi = top + 40.0 * s
        let yLo = bottom - 40.0 * s
        var items: [Item] = []
        for (i, label) in ["189.50", "189.00", "188.50", "188.00"].enumerated() {
            items.append(Item(text: label, pixelSize: 24.0 * s, x: right - 90.0 * s,
                              y: yHi + ((yLo - yHi) * Double(i)) / 3.0 + 8.0 * s))
        }
        for (i, label) in ["10AM", "12PM", "2PM", "4PM"].enumerated() {
            items.append(Item(text: label, pixelSize: 24.0 * s, x: left + ((right - left) * Double(i)) / 4.0,
                              y: bottom + 30.0 * s))
        }
        items.append(Item(text: "1D", pixelSize: 24.0 * s, x: left, y: top - 20.0 * s))
        items.append(Item(text: "$189.43", pixelSize: 64.0 * s, x: left + 60.0 * s, y: top + 64.0 * s))
        return items
    }

    /// Draws the labels over whatever `buffer` holds, laid out for a `width`×`height` canvas (default:
    /// the buffer's size). Returns the damaged rectangle.
    @discardableResult
    public func draw(into buffer: inout PixelBuffer, width: Int? = nil, height: Int? = nil) -> IntRect {
        let w = width ?? buffer.width, h = height ?? buffer.height
        let s = Double(w) / 1920.0
        // Sizes from the display scale cannot usefully fail, so they are clamped rather than thrown.
        let small = Font(face: face, clampingPixelSize: 24.0 * s, kerning: kerning, positioning: positioning)
        let large = small.withPixelSize(64.0 * s)
        if layout?.width != w || layout?.height != h { layout = (w, h, Self.items(width: w, height: h)) }
        var damage = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
        for item in layout!.items {
            let font = item.pixelSize == 24.0 * s ? small : large
            damage = damage.union(renderer.draw(item.text, font: font, color: Self.color, x: item.x, y: item.y,
                                                into: &buffer))
        }
        return damage
    }
}
