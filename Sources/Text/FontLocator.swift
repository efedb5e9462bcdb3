import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// The two weights the daemon draws in: regular for labels, bold for the price.
public enum FontWeight: Sendable, Equatable, Hashable, CustomStringConvertible {
    case regular
    case bold

    public var description: String { self == .regular ? "regular" : "bold" }
}

/// Finds font files without fontconfig: an explicit path wins, then Debian's DejaVu Sans
/// (`fonts-dejavu-core`), then any `*Sans*.ttf` in the usual font directories.
public enum FontLocator {
    /// Debian's DejaVu Sans files, the default look of Tickerboard.
    public static let defaultPaths: [FontWeight: String] = [
        .regular: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        .bold: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    ]

    /// Fonts with Japanese, Chinese and Korean characters, in order of preference (Debian's
    /// fonts-noto-cjk, fonts-wqy-microhei, fonts-wqy-zenhei, fonts-droid-fallback): DejaVu Sans has
    /// none, and the screen's words in those languages need them.
    public static let fallbackPaths = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    ]

    /// Directories searched (recursively, a few levels deep) when DejaVu is not installed.
    public static let searchDirectories = ["/usr/share/fonts", "/usr/local/share/fonts"]

    /// The font file for `weight`.
    ///
    /// - An explicit `path` is used as given: when a config names a font, a typo must be an error,
    ///   not a silent fallback. It throws `fontFileMissing` if absent.
    /// - Otherwise DejaVu Sans, then the best `*Sans*.ttf` under `directories`.
    /// `defaults` and `directories` exist for tests; callers leave them alone.
    public static func path(for weight: FontWeight, explicit path: String? = nil,
                            defaults: [FontWeight: String] = defaultPaths,
                            directories: [String] = searchDirectories) throws(TextError) -> String {
        if let path {
            guard FileSystem.exists(path) else { throw .fontFileMissing(path: path) }
            return path
        }
        let preferred = defaults[weight]
        if let preferred, FileSystem.isReadable(preferred) { return preferred }
        var candidates: [String] = []
        for directory in directories { collectSansFonts(in: directory, depth: 3, into: &candidates) }
        if let best = candidates.filter({ FileSystem.isReadable($0) }).min(by: { rank($0, weight) < rank($1, weight) }) {
            return best
        }
        throw .noFontFound(searched: (preferred.map { [$0] } ?? []) + directories.map { $0 + "/**/*Sans*.ttf" })
    }

    /// Orders candidates: right weight first, then upright, normal width, proportional, then by name
    /// (so the choice is the same on every boot).
    private static func rank(_ path: String, _ weight: FontWeight) -> (Int, String) {
        let name = String(path.split(separator: "/").last ?? "").lowercased()
        var penalty = 0
        let isBold = name.contains("bold")
        if isBold != (weight == .bold) { penalty += 8 }
        if name.contains("italic") || name.contains("oblique") { penalty += 4 }
        if name.contains("condensed") || name.contains("light") || name.contains("black") { penalty += 2 }
        if name.contains("mono") { penalty += 1 }
        return (penalty, path)
    }

    private static func collectSansFonts(in directory: String, depth: Int, into result: inout [String]) {
        guard depth > 0 else { return }
        for name in FileSystem.list(directory) where !name.hasPrefix(".") {
            let full = directory + "/" + name
            guard let kind = FileSystem.kind(of: full) else { continue }
            if kind == .directory {
                collectSansFonts(in: full, depth: depth - 1, into: &result)
            } else if name.contains("Sans"), name.lowercased().hasSuffix(".ttf") {
                result.append(full)
            }
        }
    }
}

/// The regular and bold faces the daemon draws with, loaded once at start-up.
public struct FontSet {
    public let regular: FontFace
    public let bold: FontFace

    public init(regular: FontFace, bold: FontFace) {
        self.regular = regular
        self.bold = bold
    }

    /// Loads both weights: explicit paths from the config, else the defaults of `FontLocator`.
    /// If no bold file can be found but a regular one can, the regular face is used for bold too:
    /// a plainer price label beats a daemon that will not start.
    public static func load(regularPath: String? = nil, boldPath: String? = nil,
                            fallbackPaths: [String] = FontLocator.fallbackPaths) throws(TextError) -> FontSet {
        let regular = try FontFace(path: FontLocator.path(for: .regular, explicit: regularPath))
        let bold: FontFace
        if let boldPath {
            bold = try FontFace(path: FontLocator.path(for: .bold, explicit: boldPath))
        } else if let found = try? FontLocator.path(for: .bold) {
            bold = try FontFace(path: found)
        } else {
            bold = regular
        }
        // The first CJK font that opens backs both weights; without one those characters are boxes
        // (and the screen keeps English words: Phrases.drawable).
        for path in fallbackPaths where FileSystem.isReadable(path) {
            guard let face = try? FontFace(path: path) else { continue }
            regular.fallback = face
            bold.fallback = face
            break
        }
        return FontSet(regular: regular, bold: bold)
    }

    /// The face for `weight`.
    public subscript(weight: FontWeight) -> FontFace { weight == .bold ? bold : regular }
}
