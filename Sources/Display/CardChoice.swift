// Which DRM card shows the picture when the config names none. A Raspberry Pi 4/5 has a render-only
// GPU (`v3d`) beside its display controller (`vc4`), numbered either way round from boot to boot (a
// Pi 5 can have three cards); x86 boxes with a discrete GPU and a virtual one look alike. The first
// card is therefore no answer: the survey below says what each card can do, and a pure rule picks.

/// What one `/dev/dri/card*` can do, as the survey found it.
public struct DRMCardSummary: Sendable, Equatable {
    public struct Connector: Sendable, Equatable {
        public var name: String
        public var connected: Bool
    }

    public var path: String
    public var driver: String
    /// False when the card has no KMS resources (a render-only GPU, `vgem`, an accelerator).
    public var modeset: Bool
    public var connectors: [Connector]
    /// DRM_CAP_DUMB_BUFFER: the only buffers this software renderer can scan out.
    public var dumbBuffers: Bool
    /// Why the card could not be opened (permissions, a node gone), when it could not.
    public var openProblem: String? = nil

    /// Why this card cannot show a picture at all, or nil when it can (once something is connected).
    public var unusableBecause: String? {
        if let openProblem { return "cannot open: \(openProblem)" }
        if !modeset { return "render-only (no KMS outputs)" }
        if connectors.isEmpty { return "no connectors" }
        if !dumbBuffers { return "no dumb buffers" }
        return nil
    }

    var name: String { "\(path) (\(driver))" }
}

/// The card the daemon takes, and why: `use` a card with a connected output, `wait` on a display
/// card whose outputs are all disconnected (a monitor off at boot), or `none` when no card can show
/// anything (then fbdev is all there is).
public enum DRMCardChoice: Sendable, Equatable {
    case use(path: String, reason: String)
    case wait(path: String, reason: String)
    case none(reason: String)

    public var path: String? {
        switch self {
        case .use(let p, _), .wait(let p, _): return p
        case .none: return nil
        }
    }

    public var reason: String {
        switch self {
        case .use(_, let r), .wait(_, let r), .none(let r): return r
        }
    }

    /// First the card with a connected output (the named connector, when `[display] connector` names
    /// one), in card order; else the first card that could show one once it is plugged in (that has
    /// the named connector); never a card that is render-only or lacks dumb buffers.
    public static func choose(_ cards: [DRMCardSummary], connector wanted: String? = nil) -> DRMCardChoice {
        let usable = cards.filter { $0.unusableBecause == nil }
        let skipped = cards.compactMap { c in c.unusableBecause.map { "\(c.name) \($0)" } }
        let skippedNote = skipped.isEmpty ? "" : "; skipped " + skipped.joined(separator: ", ")
        func matches(_ c: DRMCardSummary.Connector) -> Bool { wanted.map { $0 == c.name } ?? true }
        for card in usable {
            if let out = card.connectors.first(where: { $0.connected && matches($0) }) {
                return .use(path: card.path, reason: "\(card.name) has \(out.name) connected\(skippedNote)")
            }
        }
        for card in usable where card.connectors.contains(where: matches) {
            let names = card.connectors.filter(matches).map(\.name).joined(separator: ", ")
            return .wait(path: card.path, reason: "\(card.name) drives displays but nothing is connected (\(names))\(skippedNote)")
        }
        if cards.isEmpty { return .none(reason: "no /dev/dri/card* devices") }
        if let wanted, !usable.isEmpty {
            return .none(reason: "no card has a connector named \(wanted)\(skippedNote)")
        }
        return .none(reason: "no card can show a picture: " + skipped.joined(separator: ", "))
    }
}
