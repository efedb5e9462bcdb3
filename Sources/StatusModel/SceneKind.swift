// The one vocabulary of scenes: what `[output] scene`, `ctl scene`, `render --scene`, the status
// file and the Home Assistant bridge call the things a screen shows. Every scene name is spelt in
// this file alone (SourceRulesTests holds the sources to that); each user says which scenes it
// takes, and its messages list them from here, so a new scene is one case, not a hunt for strings.
//
// Here because StatusModel is the leaf every user imports already (the core, `ctl`, the bridge,
// the commands) and the status file prints these names.

/// What a screen shows, by the name everything outside the core reads and writes.
public enum SceneKind: String, CaseIterable, Sendable {
    /// An instrument's line chart, cycling its ranges (the status file said `line` until issue 51).
    case chart
    /// Each month's change as a bar, growing in.
    case bars
    /// The line drawing itself in.
    case draw
    /// The overview: a tile per instrument.
    case watchlist
    /// The ticker tape alone, full screen.
    case tape
    /// The holdings' value.
    case portfolio

    /// The name printed everywhere (config, `ctl`, the status file, the bridge).
    public var name: String { rawValue }

    /// Spellings of earlier versions, still read so configs, scripts and automations keep working.
    static let aliases: [String: SceneKind] = ["line": .chart, "draw-in": .draw]

    /// A scene's name or an earlier spelling of it, in any case; nil for anything else.
    public init?(parsing text: String) {
        let word = text.lowercased()
        guard let kind = SceneKind(rawValue: word) ?? Self.aliases[word] else { return nil }
        self = kind
    }

    /// `text` as one of `accepted`; nil when it names no scene or one the caller does not take.
    public static func parse(_ text: String, among accepted: [SceneKind]) -> SceneKind? {
        SceneKind(parsing: text).flatMap { accepted.contains($0) ? $0 : nil }
    }

    /// The names of `kinds` for a message: "chart, watchlist or tape".
    public static func names(_ kinds: [SceneKind], last conjunction: String = "or") -> String {
        let words = kinds.map(\.name)
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + words[words.count - 1]
    }
}

// As its name in the status file; an earlier spelling reads as its scene, an unknown name is no
// scene (the status's lenient decoding then leaves it out, not the whole status).
extension SceneKind: Codable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let kind = SceneKind(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "no scene \(text)")
        }
        self = kind
    }
}
