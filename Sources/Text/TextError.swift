/// Why a font could not be found, opened or used. Every message names the file involved and what to
/// do about it, because these errors surface at daemon start-up and in `check-config`.
public enum TextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The font file does not exist (an explicit path from the config, or the default DejaVu path).
    case fontFileMissing(path: String)
    /// The file exists but this process may not read it.
    case fontFileUnreadable(path: String)
    /// FreeType could not parse the file: corrupt, truncated or not a font at all.
    case corruptFont(path: String, freeTypeError: Int32)
    /// The font has no outlines (a bitmap-only font), so it cannot be drawn at arbitrary pixel sizes.
    case notScalable(path: String)
    /// No usable font was found in any of the places searched.
    case noFontFound(searched: [String])
    /// A pixel size outside `Font.pixelSizeRange` (zero, negative, not finite or absurdly large).
    case invalidPixelSize(Double)
    /// FreeType failed in a way no input explains (out of memory, library start-up).
    case freeType(function: String, code: Int32)

    static let packageHint = "install the Debian package fonts-dejavu-core"

    public var description: String {
        switch self {
        case .fontFileMissing(let path):
            return "font file \(path) does not exist; \(Self.packageHint) or set a font path that exists"
        case .fontFileUnreadable(let path):
            return "font file \(path) exists but cannot be read (permissions?)"
        case .corruptFont(let path, let code):
            return "font file \(path) is corrupt or not a font FreeType can read (\(freeTypeMessage(code))); "
                + "point the config at a .ttf/.otf file or \(Self.packageHint)"
        case .notScalable(let path):
            return "font file \(path) has no outlines (bitmap-only font); use a TrueType/OpenType font, e.g. "
                + "\(Self.packageHint)"
        case .noFontFound(let searched):
            return "no font found (looked for \(searched.joined(separator: ", "))); \(Self.packageHint)"
        case .invalidPixelSize(let size):
            return "font pixel size \(size) is outside \(Font.pixelSizeRange.lowerBound)...\(Font.pixelSizeRange.upperBound)"
        case .freeType(let function, let code):
            return "\(function) failed: \(freeTypeMessage(code))"
        }
    }
}

/// FreeType's own error strings are compiled out of Debian's build (FT_CONFIG_OPTION_ERROR_STRINGS is
/// off), so the few codes a user can actually cause are spelled out here.
func freeTypeMessage(_ code: Int32) -> String {
    let text: String
    switch code {
    case 0x01: text = "cannot open resource"
    case 0x02: text = "unknown file format"
    case 0x03: text = "broken file"
    case 0x04: text = "invalid FreeType version"
    case 0x06: text = "invalid argument"
    case 0x08: text = "invalid table"
    case 0x10: text = "invalid glyph index"
    case 0x40: text = "out of memory"
    case 0x51, 0x52, 0x53, 0x54, 0x55: text = "stream error (file truncated?)"
    case 0x8E: text = "table missing"
    default: text = "error"
    }
    return "FreeType error 0x\(String(code, radix: 16)): \(text)"
}
