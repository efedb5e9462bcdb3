/// How glyph origins are placed on the pixel grid.
public enum GlyphPositioning: Sendable, Equatable, Hashable {
    /// Origins are rounded to the nearest quarter pixel; each phase has its own cached mask. Spacing
    /// stays true to the font at small sizes (the default).
    case subpixel
    /// Origins are rounded to whole pixels (what cairo 1.16 does): one mask per glyph and size, so
    /// a quarter of the cache, at the cost of letter spacing off by up to half a pixel.
    case wholePixel
}

/// A face at one pixel size, plus the layout options that go with it. Cheap to copy; make one per
/// label style and keep it.
public struct Font {
    /// Accepted pixel sizes. Above 1,000 px a single glyph mask would be megabytes and take FreeType
    /// long enough to stall a frame; no display this daemon drives needs more.
    public static let pixelSizeRange: ClosedRange<Double> = 1.0 / 64.0 ... 1000

    public let face: FontFace
    /// The pixel size (the em square in pixels), quantised to FreeType's 1/64 px.
    public let pixelSize: Double
    /// Give every digit the advance of the widest digit, so prices and times do not jitter when
    /// their digits change. Kerning next to digits is skipped then, for the same reason.
    public var tabularDigits: Bool
    /// Apply the font's pair kerning (`kern` table).
    public var kerning: Bool
    public var positioning: GlyphPositioning

    /// Pixel size in FreeType's 26.6 fixed point: part of the glyph cache key.
    let size26Dot6: Int32
    /// Pixels per font unit.
    let scale: Double

    /// A font of `face` at `pixelSize` px; throws `TextError.invalidPixelSize` for sizes outside
    /// `pixelSizeRange` (zero, negative, NaN, infinite, or above 1,000 px). Use this for sizes that
    /// come from a config file, so a bad value is reported instead of silently changed.
    public init(face: FontFace, pixelSize: Double, tabularDigits: Bool = false, kerning: Bool = true,
                positioning: GlyphPositioning = .subpixel) throws(TextError) {
        guard pixelSize.isFinite, Self.pixelSizeRange.contains(pixelSize) else {
            throw .invalidPixelSize(pixelSize)
        }
        self.init(face: face, clampingPixelSize: pixelSize, tabularDigits: tabularDigits, kerning: kerning,
                  positioning: positioning)
    }

    /// A font of `face` at `pixelSize` clamped into `pixelSizeRange` (NaN becomes the smallest size).
    /// Use this for sizes computed from the display scale, which cannot usefully fail.
    public init(face: FontFace, clampingPixelSize pixelSize: Double, tabularDigits: Bool = false,
                kerning: Bool = true, positioning: GlyphPositioning = .subpixel) {
        let clamped = pixelSize.isNaN ? Self.pixelSizeRange.lowerBound
            : min(max(pixelSize, Self.pixelSizeRange.lowerBound), Self.pixelSizeRange.upperBound)
        let fixed = Int32((clamped * 64).rounded())
        self.face = face
        self.size26Dot6 = fixed
        self.pixelSize = Double(fixed) / 64
        self.scale = self.pixelSize / Double(face.unitsPerEm)
        self.tabularDigits = tabularDigits
        self.kerning = kerning
        self.positioning = positioning
    }

    /// Ascent above the baseline in pixels.
    public var ascent: Double { Double(face.ascender) * scale }
    /// Descent below the baseline in pixels (positive).
    public var descent: Double { Double(face.descender) * scale }

    /// The same font at another pixel size (clamped like `init(face:clampingPixelSize:)`).
    public func withPixelSize(_ size: Double) -> Font {
        Font(face: face, clampingPixelSize: size, tabularDigits: tabularDigits, kerning: kerning,
             positioning: positioning)
    }
}
