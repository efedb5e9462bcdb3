/// `[output NAME]` sections: what each screen of a card shows when one daemon drives several
/// (issue 34). Parsing and the whole-file checks live here so Config.swift only routes the
/// section; which connector ends up driving which section is `OutputAssignment`'s decision.

import StatusModel

/// One `[output NAME]` section.
public struct OutputConfig: Equatable, Sendable {
    /// Which connector the section means: the card's first or second connected one (in the card's
    /// connector order, not counting connectors another section names), or one by its DRM name.
    public enum Name: Equatable, Sendable, CustomStringConvertible {
        case first
        case second
        case connector(String)

        /// `first`, `second` (any case) or a DRM connector name like HDMI-A-1, DSI-1, Virtual-1:
        /// letters, digits and `-`, ending in `-` and a number; nil for anything else.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "first": self = .first
            case "second": self = .second
            default:
                let parts = text.split(separator: "-", omittingEmptySubsequences: false)
                guard text.count <= OutputLimits.nameLength, parts.count >= 2,
                      parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.isASCIIAlnum } }),
                      let last = parts.last, last.allSatisfy(\.isNumber) else { return nil }
                self = .connector(text)
            }
        }

        public var description: String {
            switch self {
            case .first: return "first"
            case .second: return "second"
            case .connector(let n): return n
            }
        }

        /// Whether two sections mean the same output: connector names compare without case, as
        /// the kernel's are fixed and a user's spelling of them is not.
        public func same(as other: Name) -> Bool {
            switch (self, other) {
            case (.first, .first), (.second, .second): return true
            case (.connector(let a), .connector(let b)): return a.lowercased() == b.lowercased()
            default: return false
            }
        }
    }

    /// What an output may show: the chart (cycling ranges and instruments as a single screen does;
    /// `[chart] watchlist` still puts the overview into the round), the overview alone, or the tape
    /// alone.
    public static let scenes: [SceneKind] = [.chart, .watchlist, .tape]

    public var name: Name
    /// One of `scenes`.
    public var scene = SceneKind.chart
    /// Clockwise degrees; nil: `[display] rotation` (whose auto follows the panel's orientation).
    public var rotation: Int?
    /// nil: `[display] scale`.
    public var scale: Double?
    public var line: Int
    public var lines: [String: Int] = [:]
    public var files: [String: String] = [:]

    public init(name: Name, scene: SceneKind = .chart, rotation: Int? = nil, scale: Double? = nil, line: Int = 0) {
        self.name = name
        self.scene = scene
        self.rotation = rotation
        self.scale = scale
        self.line = line
    }

    static let keys = ["scene", "rotation", "scale"]

    /// The section's name as the user wrote it in messages: `[output HDMI-A-1]`.
    var header: String { "[output \(name)]" }
}

extension OutputConfig: SectionLocation {}

enum OutputLimits {
    /// More sections than a card has CRTCs is a mistake; four covers every board this runs on.
    static let outputs = 4
    /// The kernel's connector names are short ("HDMI-A-1", "Writeback-1").
    static let nameLength = 32
}

private extension Unicode.Scalar {
    var isASCIIAlnum: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self) }
}

extension Config {
    /// An `[output NAME]` header: the section exists from here, in the order of the headers (the
    /// order a spanning tape runs in), even with no keys. A section repeated (in a drop-in, or
    /// spelled in another case) is the same one, as `[instrument X]` is.
    static func declareOutput(_ header: ConfigFile.Entry, mainFile: String, to config: inout Config) -> [ConfigIssue] {
        func error(_ message: String) -> [ConfigIssue] {
            [ConfigIssue(file: header.file, line: header.line, key: "", message: message, severity: .error)]
        }
        let text = String(header.section.dropFirst("output ".count)).trimmingWhitespace()
        guard let name = OutputConfig.Name(text) else {
            return error("[output NAME]: \(ConfigFile.excerpt(text)) is not first, second or a connector name like HDMI-A-1 (letters, digits and -, at most \(OutputLimits.nameLength) characters)")
        }
        guard !config.outputs.contains(where: { $0.name.same(as: name) }) else { return [] }
        guard config.outputs.count < OutputLimits.outputs else {
            return error("more than \(OutputLimits.outputs) [output] sections")
        }
        var output = OutputConfig(name: name, line: header.line)
        output.note("", line: header.line, file: header.file == mainFile ? nil : header.file)
        config.outputs.append(output)
        return []
    }

    /// `[output NAME]` keys, a later one winning. A section whose header was refused (its name, or
    /// one too many) has had its message; its keys are dropped quietly.
    static func applyOutputEntry(section: String, _ key: String, _ value: String, line: Int, file: String?,
                                 to config: inout Config, fail: (String) -> Void, warn: (String) -> Void) {
        let text = String(section.dropFirst("output ".count)).trimmingWhitespace()
        guard let name = OutputConfig.Name(text),
              let index = config.outputs.firstIndex(where: { $0.name.same(as: name) }) else { return }
        var output = config.outputs[index]
        output.note(key, line: line, file: file)
        switch key {
        case "scene":
            guard let scene = SceneKind.parse(value, among: OutputConfig.scenes) else {
                fail("expected \(SceneKind.names(OutputConfig.scenes)), found \"\(value)\"")
                return
            }
            output.scene = scene
        case "rotation":
            if value.lowercased() == "auto" { output.rotation = nil } else {
                guard let r = Int(value), [0, 90, 180, 270].contains(r) else {
                    fail("expected auto ([display] rotation), 0, 90, 180 or 270, found \"\(value)\""); return
                }
                output.rotation = r
            }
        case "scale":
            if value.lowercased() == "auto" { output.scale = nil } else {
                guard let s = Double(value), s >= 0.25, s <= 4 else {
                    fail("expected auto ([display] scale) or a number from 0.25 to 4, found \"\(value)\""); return
                }
                output.scale = s
            }
        default:
            warn(unknownKeyMessage(key, known: OutputConfig.keys))
        }
        config.outputs[index] = output
    }

    /// The sections drive KMS outputs of one card; a framebuffer has one screen.
    static let outputsNeedKMS = "[output] sections drive the outputs of one KMS card; with backend = fbdev only the first section's scene is shown"

    /// What the sections mean together: keys of `[display]` and `[tape]` that they override, and
    /// sections that cannot show anything.
    static func checkOutputs(_ config: Config, mainFile: String) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func warning(_ at: (file: String, line: Int), _ key: String, _ message: String) {
            issues.append(ConfigIssue(file: at.file, line: at.line, key: key, message: message, severity: .warning))
        }
        func tapeAt(_ key: String) -> (file: String, line: Int) {
            (config.keyFiles["tape." + key] ?? mainFile, config.keyLines["tape." + key] ?? 0)
        }
        // Without sections a single screen's config is as it always was (span = all is then moot).
        guard let firstOutput = config.outputs.first else { return issues }
        if let second = config.outputs.first(where: { $0.name == .second }),
           !config.outputs.contains(where: { $0.name == .first }) {
            warning(second.location(of: "", mainFile: mainFile), "",
                    "[output second] without [output first]: the first connector stays dark, and with one screen plugged in nothing shows")
        }
        if let connector = config.connector {
            warning((config.keyFiles["display.connector"] ?? mainFile, config.keyLines["display.connector"] ?? 0), "connector",
                    "\(connector) is ignored: the [output] sections name the connectors")
        }
        if config.tapePosition == .full {
            warning(tapeAt("position"), "position",
                    "full is the single screen's tape; with [output] sections scene = tape makes an output the tape, and chart or watchlist outputs get a band with bottom or top")
        }
        if config.tapeSpan {
            let showing = config.outputs.filter { config.showsTape($0) }
            if showing.count < 2 {
                warning(tapeAt("span"), "span",
                        "span = all joins the tapes of two or more outputs, and \(showing.count) shows one (scene = tape, or [tape] position = bottom or top)")
            }
        }
        if config.displayBackend == .fbdev {
            warning(firstOutput.location(of: "", mainFile: mainFile), "", outputsNeedKMS)
        }
        return issues
    }

    /// Whether `output` shows a tape: the tape alone, or the band beside its chart or overview.
    public func showsTape(_ output: OutputConfig) -> Bool {
        output.scene == .tape || tapePosition == .bottom || tapePosition == .top
    }

    /// The config one output's core runs on: its scene, rotation and scale in the single-screen
    /// keys the core reads (`scene = tape` is the tape alone, `watchlist` the overview alone).
    /// Without `[output]` sections, the config as it is.
    public func forOutput(_ index: Int) -> Config {
        let all = effectiveOutputs
        guard !outputs.isEmpty, all.indices.contains(index) else { return self }
        let o = all[index]
        var c = self
        c.rotation = o.rotation
        c.scale = o.scale
        // The single screen's full tape is an output's scene now (check-config says so).
        if c.tapePosition == .full { c.tapePosition = .off }
        switch o.scene {
        case .tape: c.tapePosition = .full
        case .watchlist: c.watchlist = .only
        // Bars, the draw-in and the portfolio are moments of the chart's round, never an output's.
        case .chart, .bars, .draw, .portfolio: if c.watchlist == .only { c.watchlist = .cycle }
        }
        return c
    }

    /// The outputs to drive: the `[output]` sections with `[display]`'s rotation and scale where
    /// they set none, or without sections the one screen of `[display]` (its connector, else the
    /// first), showing what a single screen shows today.
    public var effectiveOutputs: [OutputConfig] {
        guard !outputs.isEmpty else {
            let name = connector.map { OutputConfig.Name.connector($0) } ?? .first
            let scene: SceneKind = tapePosition == .full ? .tape : watchlist == .only ? .watchlist : .chart
            return [OutputConfig(name: name, scene: scene, rotation: rotation, scale: scale)]
        }
        return outputs.map { o in
            var o = o
            if o.rotation == nil { o.rotation = rotation }
            if o.scale == nil { o.scale = scale }
            return o
        }
    }
}
