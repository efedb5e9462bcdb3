/// A requested mode, parsed from `WxH` or `WxH@Hz` (config files and command lines).
public struct ModeRequest: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshHz: Double?

    public init(width: Int, height: Int, refreshHz: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
    }

    /// Parses `1920x1080` or `1920x1080@60`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let sizeText = parts.first else { return nil }
        let size = sizeText.split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), w > 0, h > 0 else { return nil }
        var hz: Double?
        if parts.count == 2 {
            guard let r = Double(parts[1]), r > 0 else { return nil }
            hz = r
        }
        self.init(width: w, height: h, refreshHz: hz)
    }

    public var description: String {
        refreshHz.map { "\(width)x\(height)@\(Self.formatHz($0))" } ?? "\(width)x\(height)"
    }

    package static func formatHz(_ hz: Double) -> String {
        let r = (hz * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
