import CFreeType
import LinuxIO
import Raster
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Cache keys need a face identity that is never reused: an `ObjectIdentifier` can come back for a
/// new face after the old one is freed, and its stale masks would then be drawn for the new font.
private let faceSerial = Atomic<UInt32>(0)

/// A glyph's cmap result and unscaled advance, looked up once per face.
struct GlyphInfo {
    /// FreeType glyph index, or `FontFace.missingGlyph` when neither the font nor a substitute has it.
    var index: UInt32
    /// Horizontal advance in font units.
    var advance: Int32

    static let unknown = GlyphInfo(index: 0, advance: .min)
}

/// One font file opened through FreeType, with its own `FT_Library`.
///
/// Each face owns its library so lifetimes are trivial (deinit frees face, then library) and no
/// FreeType object is ever shared; a handful of faces costs a few kilobytes. Layout data (cmap lookups,
/// advances, kerning) is cached here in font units, so laying out a string makes no FreeType call once
/// its characters have been seen; rendering happens only through `GlyphCache`.
///
/// Not Sendable: FreeType faces must not be used from two threads, and the daemon has one.
public final class FontFace {
    /// The glyph index used for characters the font cannot show; drawn as a box by `GlyphCache`.
    public static let missingGlyph = UInt32.max
    /// Marks a glyph index as the fallback face's (a CJK font behind DejaVu Sans); FreeType glyph
    /// indices stay below 2^16, so the bit is free.
    static let fallbackBit: UInt32 = 0x8000_0000

    /// Where characters this font lacks are looked up next (Japanese, Chinese and Korean words
    /// when a CJK font is installed), before they become the missing-glyph box.
    public var fallback: FontFace? {
        didSet {
            otherGlyphs = [:]
            asciiGlyphs = [GlyphInfo](repeating: .unknown, count: 128)
        }
    }

    /// The file this face was loaded from.
    public let path: String
    /// The family name in the font, e.g. "DejaVu Sans".
    public let familyName: String
    /// The style name in the font, e.g. "Book" or "Bold".
    public let styleName: String
    /// Font design units per em (2048 for DejaVu Sans).
    public let unitsPerEm: Int
    /// Ascent above the baseline in font units (positive), from the font's horizontal header.
    public let ascender: Int
    /// Descent below the baseline in font units (positive: the distance, not the coordinate).
    public let descender: Int
    /// Whether the font has a `kern` table FreeType can read (GPOS-only kerning is not applied).
    public let hasKerning: Bool

    /// Unique per face for the life of the process (see `faceSerial`).
    let serial: UInt32

    private let library: FT_Library
    private let face: FT_Face
    /// The font's bytes: FreeType reads them in place for as long as the face lives.
    private let file: MappedFile
    /// A font is a few MB at most; a bigger "font" is something else (a disk image, /dev/zero).
    static let maximumFileBytes = 64 << 20

    /// The char size FreeType is currently set to, in 26.6 pixels (0: none yet).
    private var currentSize: Int32 = 0

    private var asciiGlyphs = [GlyphInfo](repeating: .unknown, count: 128)
    private var otherGlyphs: [UInt32: GlyphInfo] = [:]
    private var kerningPairs: [UInt64: Int32] = [:]
    private var cachedTabularAdvance: Int32?

    /// Opens the font file at `path` (face 0 of a collection).
    public init(path: String) throws(TextError) {
        // LinuxIO opens it (the one place that opens files: no FIFO, no device, a size bound), and
        // FreeType reads the mapping; "not there" and "not allowed" stay apart.
        let file: MappedFile
        do { file = try MappedFile(path, limit: Self.maximumFileBytes) } catch {
            switch error {
            case .notFound: throw .fontFileMissing(path: path)
            case .system(let e) where e.rawValue == EACCES || e.rawValue == EPERM: throw .fontFileUnreadable(path: path)
            case .tooLarge, .notRegularFile, .isDirectory: throw .corruptFont(path: path, freeTypeError: 0x02)
            case .system: throw .fontFileUnreadable(path: path)
            }
        }
        guard let base = file.bytes.baseAddress else { throw .corruptFont(path: path, freeTypeError: 0x02) }

        var lib: FT_Library?
        let initError = FT_Init_FreeType(&lib)
        guard initError == 0, let lib else { throw .freeType(function: "FT_Init_FreeType", code: initError) }

        var opened: FT_Face?
        let openError = FT_New_Memory_Face(lib, base.assumingMemoryBound(to: FT_Byte.self), FT_Long(file.bytes.count), 0, &opened)
        guard openError == 0, let opened else {
            FT_Done_FreeType(lib)
            if openError == 0x40 { throw .freeType(function: "FT_New_Face", code: openError) }
            throw .corruptFont(path: path, freeTypeError: openError)
        }
        let rec = opened.pointee
        guard rec.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0, rec.units_per_EM > 0 else {
            FT_Done_Face(opened)
            FT_Done_FreeType(lib)
            throw .notScalable(path: path)
        }

        self.path = path
        self.file = file
        library = lib
        face = opened
        familyName = rec.family_name.map { String(cString: $0) } ?? ""
        styleName = rec.style_name.map { String(cString: $0) } ?? ""
        unitsPerEm = Int(rec.units_per_EM)
        ascender = Int(rec.ascender)
        descender = -Int(rec.descender)
        hasKerning = rec.face_flags & FT_Long(FT_FACE_FLAG_KERNING) != 0
        serial = faceSerial.add(1, ordering: .relaxed).newValue
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Whether the font itself has a glyph for `scalar` (no substitutes considered).
    public func hasGlyph(for scalar: Unicode.Scalar) -> Bool {
        FT_Get_Char_Index(face, FT_ULong(scalar.value)) != 0
    }

    /// Whether `scalar` is drawn as itself: by this font or its fallback.
    public func canDraw(_ scalar: Unicode.Scalar) -> Bool {
        hasGlyph(for: scalar) || fallback?.hasGlyph(for: scalar) == true
    }

    /// Glyph and advance for `scalar`. A character the font lacks is replaced by a look-alike the font
    /// has (U+2212 minus → "-", odd spaces → space, …); failing that, by the missing-glyph box.
    @inline(__always)
    func glyphInfo(for scalar: Unicode.Scalar) -> GlyphInfo {
        let v = scalar.value
        if v < 128 {
            let known = asciiGlyphs[Int(v)]
            if known.advance != .min { return known }
            let info = lookUpGlyph(v)
            asciiGlyphs[Int(v)] = info
            return info
        }
        if let known = otherGlyphs[v] { return known }
        let info = lookUpGlyph(v)
        otherGlyphs[v] = info
        return info
    }

    private func lookUpGlyph(_ codePoint: UInt32) -> GlyphInfo {
        var index = FT_Get_Char_Index(face, FT_ULong(codePoint))
        if index == 0, let substitute = Self.substitute(for: codePoint) {
            index = FT_Get_Char_Index(face, FT_ULong(substitute))
        }
        guard index != 0 else {
            if let fallback, let scalar = Unicode.Scalar(codePoint) {
                let other = fallback.glyphInfo(for: scalar)
                if other.index != Self.missingGlyph, other.index & Self.fallbackBit == 0 {
                    // Its advance in this face's units, so layout stays in one unit system.
                    let advance = Int64(other.advance) * Int64(unitsPerEm) / Int64(max(1, fallback.unitsPerEm))
                    return GlyphInfo(index: other.index | Self.fallbackBit, advance: Int32(clamping: advance))
                }
            }
            // Our box (GlyphCache.makeMissingBox) is 0.6 em wide including side bearings.
            return GlyphInfo(index: Self.missingGlyph, advance: Int32((Double(unitsPerEm) * 0.6).rounded()))
        }
        return GlyphInfo(index: UInt32(index), advance: advance(ofGlyph: UInt32(index)))
    }

    /// Look-alikes for characters a formatter or feed may produce that small fonts often lack.
    static func substitute(for codePoint: UInt32) -> UInt32? {
        switch codePoint {
        case 0x2212, 0x2010, 0x2011, 0x2012, 0x2013: return 0x2D  // minus, hyphens, en dash → "-"
        case 0x2014: return 0x2013  // em dash → en dash (then nothing: falls to the box)
        case 0x00A0, 0x2007, 0x2008, 0x2009, 0x200A, 0x202F: return 0x20  // fixed-width spaces → space
        case 0x2018, 0x2019: return 0x27
        case 0x201C, 0x201D: return 0x22
        default: return nil
        }
    }

    /// The unscaled advance of a glyph in font units (loading without scaling skips the hinter).
    private func advance(ofGlyph index: UInt32) -> Int32 {
        guard FT_Load_Glyph(face, FT_UInt(index), FT_Int32(FT_LOAD_NO_SCALE)) == 0 else { return 0 }
        return Int32(clamping: face.pointee.glyph.pointee.metrics.horiAdvance)
    }

    /// Kerning between two glyphs in font units (negative pulls them together), from the `kern` table.
    @inline(__always)
    func kerning(_ left: UInt32, _ right: UInt32) -> Int32 {
        // The missing glyph has the fallback bit too: neither kerns (they are not this face's).
        guard hasKerning, (left | right) & Self.fallbackBit == 0 else { return 0 }
        let pair = UInt64(left) << 32 | UInt64(right)
        if let known = kerningPairs[pair] { return known }
        var delta = FT_Vector()
        let ok = FT_Get_Kerning(face, FT_UInt(left), FT_UInt(right), FT_UInt(FT_KERNING_UNSCALED.rawValue), &delta)
        let value = ok == 0 ? Int32(clamping: delta.x) : 0
        kerningPairs[pair] = value
        return value
    }

    /// The advance every digit gets with tabular digits: the widest of "0"…"9", in font units.
    var tabularDigitAdvance: Int32 {
        if let known = cachedTabularAdvance { return known }
        var widest: Int32 = 0
        for digit in UInt8(ascii: "0")...UInt8(ascii: "9") {
            widest = max(widest, glyphInfo(for: Unicode.Scalar(digit)).advance)
        }
        cachedTabularAdvance = widest
        return widest
    }

    /// Test hook: pretend `scalar`'s glyph has `advance` font units. Every installed DejaVu face has
    /// equal-width digits, so without this no test could tell tabular layout from proportional.
    func overrideAdvanceForTesting(of scalar: Unicode.Scalar, to advance: Int32) {
        var info = glyphInfo(for: scalar)
        info.advance = advance
        if scalar.value < 128 { asciiGlyphs[Int(scalar.value)] = info } else { otherGlyphs[scalar.value] = info }
        cachedTabularAdvance = nil
    }

    /// Renders one glyph unhinted with grey anti-aliasing at `size` (26.6 pixels), shifted right by
    /// `phase` quarter pixels. Returns nil if FreeType cannot load or render it (a damaged glyph in an
    /// otherwise good font): the caller draws the missing-glyph box instead of failing the frame.
    func render(glyph index: UInt32, size: Int32, phase: Int) -> CachedGlyph? {
        if index & Self.fallbackBit != 0 {
            return fallback?.render(glyph: index & ~Self.fallbackBit, size: size, phase: phase)
        }
        if size != currentSize {
            guard FT_Set_Char_Size(face, 0, FT_F26Dot6(size), 72, 72) == 0 else { return nil }
            currentSize = size
        }
        // NO_HINTING matches SCENE.md's cairo reference (hint style none); NO_BITMAP keeps embedded
        // bitmap strikes from replacing outlines at a few sizes, so every size looks alike.
        let flags = FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP)
        guard FT_Load_Glyph(face, FT_UInt(index), flags) == 0 else { return nil }
        let slot = face.pointee.glyph!
        if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE, phase != 0 {
            // 26.6 units: 16 = a quarter pixel. FreeType then rounds the bitmap box out to whole pixels.
            FT_Outline_Translate(&slot.pointee.outline, FT_Pos(phase * 16), 0)
        }
        guard FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return nil }
        let bitmap = slot.pointee.bitmap
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else { return nil }
        let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        var coverage = [UInt8](repeating: 0, count: width * rows)
        if let source = bitmap.buffer, width > 0, rows > 0 {
            coverage.withUnsafeMutableBufferPointer { out in
                for y in 0..<rows {
                    // A negative pitch means the rows are stored bottom-up from `buffer`.
                    let row = pitch >= 0 ? source + y * pitch : source + (rows - 1 - y) * -pitch
                    (out.baseAddress! + y * width).update(from: row, count: width)
                }
            }
        }
        return CachedGlyph(
            mask: CoverageMask(width: width, height: rows, coverage: coverage),
            left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top))
    }
}
