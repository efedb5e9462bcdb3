import Chart
import DisplayModel
import StatusModel

/// Which connector of a card drives which configured output, decided again on every hotplug
/// survey, and where each output's window onto a spanning tape sits. Pure: the shell surveys the
/// card and hands the connectors in; the changes to make (open a CRTC, close one) come out.
///
/// The rules, in order:
/// - A named section (`[output HDMI-A-1]`) drives that connector whenever it is connected; no
///   ordinal section ever takes a connector a section names, plugged in or not.
/// - An ordinal section (`first`, `second`) keeps the connector it was given (its home) for the
///   daemon's life: unplugged, it waits for that connector and the other outputs keep theirs, so a
///   replug brings the same scene back to the same screen and the other screen never changes scene.
/// - Ordinal sections without a home take the free connected connectors in the card's order,
///   `first` before `second`; then a section whose home is unplugged takes a connector still free
///   (the cable moved to another port), and that becomes its home.
/// - A connector that is connected but offers no modes (no EDID yet) is not usable.
public struct OutputAssignment: Equatable, Sendable {
    /// One connector of the card as a survey found it, in the card's connector order.
    public struct Connector: Equatable, Sendable {
        public var name: String
        public var connected: Bool
        /// Preferred first (the kernel's order); empty when it offers none.
        public var modes: [ModeRequest]
        /// The panel's mounting, clockwise degrees (its panel-orientation property): what a
        /// rotation of auto turns by.
        public var panelRotation: Int

        public init(name: String, connected: Bool, modes: [ModeRequest], panelRotation: Int = 0) {
            self.name = name
            self.connected = connected
            self.modes = modes
            self.panelRotation = panelRotation
        }

        var usable: Bool { connected && !modes.isEmpty }
    }

    /// What one configured output is doing.
    public struct State: Equatable, Sendable {
        /// The connector driving it, and the mode (the connector's preferred); nil while it waits.
        public var connector: String?
        public var mode: ModeRequest?
        /// The frame's size after its rotation (what the scene and the tape are laid out in).
        public var frameWidth: Int
        public var frameHeight: Int
        /// Why it shows nothing, for the status file; nil while it is driven.
        public var waiting: String?

        static func idle(_ why: String) -> State {
            State(connector: nil, mode: nil, frameWidth: 0, frameHeight: 0, waiting: why)
        }
    }

    /// What the shell does to follow a survey: stop before start, so a connector that moves from one
    /// output to another is released first.
    public enum Change: Equatable, Sendable {
        case stop(output: Int, connector: String)
        case start(output: Int, connector: String, mode: ModeRequest)
    }

    public let outputs: [OutputConfig]
    /// Each output's connector as last given (kept while it is unplugged); nil before the first.
    public private(set) var homes: [String?]
    public private(set) var states: [State]
    /// Each output's frame width the last time it was driven: a spanning tape keeps an unplugged
    /// output's place, so the other outputs' tapes do not jump when it goes.
    public private(set) var lastWidths: [Int?]

    /// `outputs` as `Config.effectiveOutputs` gives them (a rotation of nil is the panel's own).
    public init(outputs: [OutputConfig]) {
        self.outputs = outputs
        homes = Array(repeating: nil, count: outputs.count)
        states = Array(repeating: .idle("not surveyed yet"), count: outputs.count)
        lastWidths = Array(repeating: nil, count: outputs.count)
    }

    /// Takes a survey of the card's connectors (in its order) and returns what changed.
    public mutating func update(_ connectors: [Connector]) -> [Change] {
        func key(_ s: String) -> String { s.lowercased() }
        let byName = Dictionary(connectors.map { (key($0.name), $0) }, uniquingKeysWith: { a, _ in a })
        var named: Set<String> = []
        for o in outputs { if case .connector(let n) = o.name { named.insert(key(n)) } }
        var assigned: [String?] = Array(repeating: nil, count: outputs.count)
        var taken: Set<String> = []
        // Named sections, and ordinal ones whose home is plugged in.
        for (i, o) in outputs.enumerated() {
            var want: String?
            if case .connector(let n) = o.name { want = n } else { want = homes[i] }
            if let want, let c = byName[key(want)], c.usable, !taken.contains(key(c.name)) {
                assigned[i] = c.name
                taken.insert(key(c.name))
            }
        }
        func free() -> [Connector] {
            connectors.filter { $0.usable && !taken.contains(key($0.name)) && !named.contains(key($0.name)) }
        }
        let ordinals = outputs.indices.filter { outputs[$0].name == .first } + outputs.indices.filter { outputs[$0].name == .second }
        // Homeless ordinals first, then those whose home is gone.
        for pass in 0..<2 {
            for i in ordinals where assigned[i] == nil && (homes[i] == nil) == (pass == 0) {
                guard let c = free().first else { break }
                assigned[i] = c.name
                homes[i] = c.name
                taken.insert(key(c.name))
            }
        }
        var next: [State] = []
        for (i, o) in outputs.enumerated() {
            guard let name = assigned[i], let c = byName[key(name)], let mode = c.modes.first else {
                next.append(.idle(waitingReason(i, connectors: connectors, byName: byName)))
                continue
            }
            let turn = o.rotation ?? c.panelRotation
            let quarter = turn == 90 || turn == 270
            let state = State(connector: c.name, mode: mode, frameWidth: quarter ? mode.height : mode.width,
                              frameHeight: quarter ? mode.width : mode.height, waiting: nil)
            lastWidths[i] = state.frameWidth
            next.append(state)
        }
        var stops: [Change] = [], starts: [Change] = []
        for i in outputs.indices {
            let old = states[i], new = next[i]
            guard old.connector != new.connector || old.mode != new.mode else { continue }
            if let c = old.connector { stops.append(.stop(output: i, connector: c)) }
            if let c = new.connector, let m = new.mode { starts.append(.start(output: i, connector: c, mode: m)) }
        }
        states = next
        return stops + starts
    }

    /// One line per output for the status file and the log, in section order:
    /// `second HDMI-A-2 1920x1080@60 tape` or `first waiting: HDMI-A-1 is not connected`.
    public var summary: [String] {
        outputs.indices.map { i in
            let o = outputs[i], state = states[i]
            guard let connector = state.connector, let mode = state.mode else {
                return "\(o.name) waiting: \(state.waiting ?? "")"
            }
            let turned = (o.rotation ?? 0) == 0 ? "" : " rotated \(o.rotation ?? 0)"
            let named = o.name == .connector(connector) ? "" : " \(connector)"
            return "\(o.name)\(named) \(mode) \(o.scene.name)\(turned)"
        }
    }

    private func waitingReason(_ i: Int, connectors: [Connector], byName: [String: Connector]) -> String {
        let want: String?
        if case .connector(let n) = outputs[i].name { want = n } else { want = homes[i] }
        guard let want else { return "no free connected connector" }
        guard let c = byName[want.lowercased()] else { return "the card has no connector \(want)" }
        if !c.connected { return "\(c.name) is not connected" }
        if c.modes.isEmpty { return "\(c.name) offers no modes" }
        return "\(c.name) is driven by another output"
    }

    /// The spanning tape (`[tape] span = all`): for each output that shows a tape, in the order of
    /// the sections, where its band starts in the one long strip, and the x0 that brings the first
    /// item in at the right edge of the last one at t = 0. An output that has never been driven
    /// takes no room; one that is unplugged keeps its last width, so the others do not jump. Nil
    /// for an output that shows no tape. Every output must draw the strip with the same cells
    /// (one `TapeMotion`), or the seam does not line up.
    public func spanOffsets(showsTape: (OutputConfig) -> Bool) -> (offsets: [Int?], x0: Double) {
        let members = outputs.indices.filter { showsTape(outputs[$0]) }
        let widths = members.map { lastWidths[$0] ?? 0 }
        let offsets = TapeSpan.offsets(widths: widths)
        var out: [Int?] = Array(repeating: nil, count: outputs.count)
        for (k, i) in members.enumerated() { out[i] = offsets[k] }
        return (out, TapeSpan.entryX0(widths: widths))
    }
}
