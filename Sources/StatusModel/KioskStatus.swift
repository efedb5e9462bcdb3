// The status contract: what the daemon writes as `status.json` and answers `ctl status` with, what
// `tickerboard ctl` prints, what the Home Assistant bridge publishes from and what the tests read.
// One type, so a key cannot be spelt one way by the writer and another by a reader. Its members
// and their order are `encode(to:)`'s; docs/fleets-and-home-assistant.md ("The status file")
// documents every key, and StatusContractTests holds the two together.
//
// A module of its own, with no dependency, so the bridge can read the status without linking the
// core and the display stack, and the core can write it without Foundation.

/// What the daemon is showing and how it is doing, for integrators and fleet monitoring: written as
/// `status.json` while it runs and printed as `key=value` lines by `render --values`. One flat
/// object, so `jq .price` or a `grep` reads it; absent values are JSON `null`.
public struct KioskStatus: Sendable, Equatable {
    public var instrumentID: String?
    public var instrumentName: String?
    public var range: String?
    public var scene: SceneKind?
    public var price: Double?
    public var change: Double?
    public var changePercent: Double?
    /// The header's price and change, the exact strings on screen.
    public var priceText: String?
    public var changeText: String?
    public var baseline: Double?
    /// `previous-close` (1D against the previous session's close) or `first` (the range's first value).
    public var baselineKind: String?
    /// The market: `open`, `pre-market`, `lunch-break`, `after-hours` or `closed`, when known.
    public var sessionState: String?
    /// Unix time of the newest price (the header's "as of"), when known.
    public var asOf: Int64?
    /// Unix time of the newest data point shown.
    public var lastDataTime: Int64?
    public var stale = false
    /// The placeholder text while the instrument waits for its data file.
    public var waitingFor: String?
    /// Why the screen waits or its prices are not fresh, in the words the screen uses; nil when fine.
    public var problem: String?
    /// The small print under the price: "as of 16:00 EST · delayed 15 min", a scrubbed point's date.
    public var note: String?
    /// The stats line's figures (`[chart] stats`; nil where the data cannot back one) and its
    /// words as drawn; the header's clock as drawn.
    public var dayLow: Double?
    public var dayHigh: Double?
    public var low52w: Double?
    public var high52w: Double?
    public var volume: Double?
    public var statsText: String?
    public var clock: String?
    public var display: String?
    /// The running executable's version (filled in by the shell): after an upgrade, the proof that
    /// the new build is the one on the wall.
    public var version: String?
    public var frames = 0
    /// `frames` at the last frame drawn with nothing in motion: equal to `frames` once the picture
    /// on screen is the settled one (a script's proof that a draw-in or morph has ended).
    public var settledFrame = 0
    public var missedVblanks = 0
    public var inputToFlipP50: Double?
    public var inputToFlipP99: Double?
    /// The recent frames' drawing and copy times (ms), as the stats line says them.
    public var renderP50: Double?
    public var renderP99: Double?
    public var copyP50: Double?
    public var copyP99: Double?
    /// Mean bytes written to scanout memory per frame, and that as a share of a frame's bytes.
    public var scanoutBytesPerFrame: Double?
    public var scanoutCopyFraction: Double?
    /// How the burn-in shift moves the picture: `fb-offset`, `copy` or `off`.
    public var burnInShift: String?
    /// How the picture is turned for the panel: `none`, `plane` (the display's scanout) or `copy`.
    public var rotation: String?
    /// How frames reach the screen (`atomic`, `legacy`, `dirtyfb`, `pan`, `copy`, `memory`) and
    /// what paces them (`vblank`, `timer`, `vsync-ioctl+timer`); filled in by the shell.
    public var presentMethod: String?
    public var pacing: String?
    /// The instrument's newest price, previous close and day change (`MarketData.dayQuote`): the
    /// same numbers as the tape, the tiles' day words, `ctl instruments` and the bridge. `price`,
    /// `range_change` are the header's: the shown range's (a scrubbed point's price while scrubbing).
    public var lastPrice: Double?
    public var previousClose: Double?
    public var dayChange: Double?
    public var dayChangePercent: Double?
    /// The zone offset-less intraday times were read in (nil: the file gave offsets).
    public var intradayTimesZone: String?
    /// Filled in by the shell, which can measure them.
    public var rssKB: Int?
    /// Why the screen shows nothing of ours: "1234 (labwc) holds the screen (DRM master)".
    public var displayDetail: String?
    /// The peak of the resident memory since the program started (VmHWM).
    public var peakRSSKB: Int?
    public var openFDs: Int?
    /// The screen's level in percent (0 while off) and how it is carried out (`backlight NAME`, `software`).
    public var level: Int?
    /// The ambient-light sensor's last reading (`[power] light-sensor`); nil without one.
    public var lux: Double?
    public var brightnessMeans: String?
    public var animating = false
    public var paused = false
    /// `ctl screen`: `auto` (the schedule decides), `on` or `off`.
    public var screenControl: String?
    /// The banner `ctl message` put up, nil for none.
    public var message: String?
    /// HDMI-CEC: `off`, `no-adapter`, `claiming`, `tv-on`, `tv-standby`, `tv-off-by-hand`, `not-answering`.
    public var cec: String?
    public var problems: [KioskProblem] = []
    /// The `[alert]`s in effect: fired and not yet re-armed.
    public var alerts: [String] = []
    /// The same alerts with what fired them and when (the bridge fires a Home Assistant event on a
    /// firing it has not seen).
    public var alertFirings: [AlertFiring] = []
    /// Each configured output when the daemon drives several (`[output]` sections), in section
    /// order; empty for one screen. Filled in by the shell, which holds the displays.
    public var outputs: [Output] = []
    public var time: Double = 0

    /// One output: which connector drives it and how it is doing.
    public struct Output: Sendable, Equatable {
        /// The section's name: `first`, `second` or a connector name.
        public var name: String
        public var connector: String?
        public var mode: String?
        public var scene: SceneKind?
        /// `running`, or `waiting: ` and why.
        public var state: String
        /// Flips completed on this output since the daemon started.
        public var flips: Int
        public var missedVblanks: Int

        public init(name: String, connector: String?, mode: String?, scene: SceneKind?, state: String, flips: Int, missedVblanks: Int) {
            self.name = name
            self.connector = connector
            self.mode = mode
            self.scene = scene
            self.state = state
            self.flips = flips
            self.missedVblanks = missedVblanks
        }
    }

    public init() {}
}

/// A problem with the configuration or the data, located as `check-config` locates it.
public struct KioskProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var key: String
    public var message: String

    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        (line > 0 ? "\(file):\(line): " : "\(file): ") + (key.isEmpty ? "" : "\(key): ") + message
    }
}

/// One alert in effect: what fired it and when. The status file lists them (`alert_firings`) and
/// the Home Assistant bridge fires an event for each firing it has not seen.
public struct AlertFiring: Sendable, Equatable {
    public var name: String
    public var instrument: String?
    /// `above`, `below`, `move` or `stale`.
    public var kind: String
    /// The condition in words (`above 300`).
    public var condition: String
    /// Unix time of the firing.
    public var firedAt: Int64

    public init(name: String, instrument: String?, kind: String, condition: String, firedAt: Int64) {
        self.name = name
        self.instrument = instrument
        self.kind = kind
        self.condition = condition
        self.firedAt = firedAt
    }
}

// MARK: The encoding

extension KioskStatus: Codable {
    /// The keys in the file's order, which is also `render --values`' line order
    /// (docs/numbers.md's transcript shows it).
    enum CodingKeys: String, CodingKey {
        case instrumentID = "instrument_id", instrumentName = "instrument_name", range, scene
        case price, change = "range_change", changePercent = "range_change_percent"
        case lastPrice = "last_price", previousClose = "previous_close", dayChange = "day_change", dayChangePercent = "day_change_percent"
        case priceText = "price_text", changeText = "change_text", baseline, baselineKind = "baseline_kind"
        case dayLow = "day_low", dayHigh = "day_high", low52w = "low_52w", high52w = "high_52w", volume, statsText = "stats_text", clock
        case sessionState = "session_state", intradayTimesZone = "intraday_times_zone", asOf = "as_of", lastDataTime = "last_data_time"
        case stale, waitingFor = "waiting_for", problem, note, display, displayDetail = "display_detail"
        case frames, settledFrame = "settled_frame", missedVblanks = "missed_vblanks"
        case inputToFlipP50 = "input_to_flip_p50_ms", inputToFlipP99 = "input_to_flip_p99_ms"
        case renderP50 = "render_p50_ms", renderP99 = "render_p99_ms", copyP50 = "copy_p50_ms", copyP99 = "copy_p99_ms"
        case scanoutBytesPerFrame = "scanout_bytes_per_frame", scanoutCopyFraction = "scanout_copy_fraction"
        case burnInShift = "burn_in_shift", rotation, presentMethod = "present_method", pacing
        case level, lux, brightnessMeans = "brightness_means", rssKB = "rss_kb", peakRSSKB = "peak_rss_kb", openFDs = "open_fds"
        case animating, paused, screenControl = "screen_control", message, cec
        case problems, alerts, alertFirings = "alert_firings", outputs, version, time
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // NaN and infinity are no JSON: null, whichever encoder runs (JSONEncoder would throw).
        func finite(_ v: Double?) -> Double? { v.flatMap { $0.isFinite ? $0 : nil } }
        try c.encode(instrumentID, forKey: .instrumentID)
        try c.encode(instrumentName, forKey: .instrumentName)
        try c.encode(range, forKey: .range)
        try c.encode(scene, forKey: .scene)
        try c.encode(finite(price), forKey: .price)
        try c.encode(finite(change), forKey: .change)
        try c.encode(finite(changePercent), forKey: .changePercent)
        try c.encode(finite(lastPrice), forKey: .lastPrice)
        try c.encode(finite(previousClose), forKey: .previousClose)
        try c.encode(finite(dayChange), forKey: .dayChange)
        try c.encode(finite(dayChangePercent), forKey: .dayChangePercent)
        try c.encode(priceText, forKey: .priceText)
        try c.encode(changeText, forKey: .changeText)
        try c.encode(finite(baseline), forKey: .baseline)
        try c.encode(baselineKind, forKey: .baselineKind)
        try c.encode(finite(dayLow), forKey: .dayLow)
        try c.encode(finite(dayHigh), forKey: .dayHigh)
        try c.encode(finite(low52w), forKey: .low52w)
        try c.encode(finite(high52w), forKey: .high52w)
        try c.encode(finite(volume), forKey: .volume)
        try c.encode(statsText, forKey: .statsText)
        try c.encode(clock, forKey: .clock)
        try c.encode(sessionState, forKey: .sessionState)
        try c.encode(intradayTimesZone, forKey: .intradayTimesZone)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(lastDataTime, forKey: .lastDataTime)
        try c.encode(stale, forKey: .stale)
        try c.encode(waitingFor, forKey: .waitingFor)
        try c.encode(problem, forKey: .problem)
        try c.encode(note, forKey: .note)
        try c.encode(display, forKey: .display)
        try c.encode(displayDetail, forKey: .displayDetail)
        try c.encode(frames, forKey: .frames)
        try c.encode(settledFrame, forKey: .settledFrame)
        try c.encode(missedVblanks, forKey: .missedVblanks)
        try c.encode(finite(inputToFlipP50), forKey: .inputToFlipP50)
        try c.encode(finite(inputToFlipP99), forKey: .inputToFlipP99)
        try c.encode(finite(renderP50), forKey: .renderP50)
        try c.encode(finite(renderP99), forKey: .renderP99)
        try c.encode(finite(copyP50), forKey: .copyP50)
        try c.encode(finite(copyP99), forKey: .copyP99)
        // Whole bytes and a tenth of a lux: the figures carry no more than that.
        try c.encode(finite(scanoutBytesPerFrame.map { $0.rounded() }), forKey: .scanoutBytesPerFrame)
        try c.encode(finite(scanoutCopyFraction), forKey: .scanoutCopyFraction)
        try c.encode(burnInShift, forKey: .burnInShift)
        try c.encode(rotation, forKey: .rotation)
        try c.encode(presentMethod, forKey: .presentMethod)
        try c.encode(pacing, forKey: .pacing)
        try c.encode(level, forKey: .level)
        try c.encode(finite(lux.map { ($0 * 10).rounded() / 10 }), forKey: .lux)
        try c.encode(brightnessMeans, forKey: .brightnessMeans)
        try c.encode(rssKB, forKey: .rssKB)
        try c.encode(peakRSSKB, forKey: .peakRSSKB)
        try c.encode(openFDs, forKey: .openFDs)
        try c.encode(animating, forKey: .animating)
        try c.encode(paused, forKey: .paused)
        try c.encode(screenControl, forKey: .screenControl)
        try c.encode(message, forKey: .message)
        try c.encode(cec, forKey: .cec)
        try c.encode(problems, forKey: .problems)
        try c.encode(alerts, forKey: .alerts)
        try c.encode(alertFirings, forKey: .alertFirings)
        try c.encode(outputs, forKey: .outputs)
        try c.encode(version, forKey: .version)
        try c.encode(finite(time), forKey: .time)
    }

    /// A field at a time: a member of the wrong type, out of range or missing is left at its
    /// default, never the whole status (issue 54: one close of 1e303 once took the bridge's device
    /// offline), and one bad item of a list is left out of it. Only a text that is no JSON object
    /// is no status.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func opt<T: Decodable>(_ key: CodingKeys) -> T? { try? c.decodeIfPresent(T.self, forKey: key) }
        func list<T: Decodable>(_ key: CodingKeys) -> [T] { (try? c.decodeIfPresent([Lenient<T>].self, forKey: key))?.compactMap(\.value) ?? [] }
        instrumentID = opt(.instrumentID)
        instrumentName = opt(.instrumentName)
        range = opt(.range)
        scene = opt(.scene)
        price = opt(.price)
        change = opt(.change)
        changePercent = opt(.changePercent)
        lastPrice = opt(.lastPrice)
        previousClose = opt(.previousClose)
        dayChange = opt(.dayChange)
        dayChangePercent = opt(.dayChangePercent)
        priceText = opt(.priceText)
        changeText = opt(.changeText)
        baseline = opt(.baseline)
        baselineKind = opt(.baselineKind)
        dayLow = opt(.dayLow)
        dayHigh = opt(.dayHigh)
        low52w = opt(.low52w)
        high52w = opt(.high52w)
        volume = opt(.volume)
        statsText = opt(.statsText)
        clock = opt(.clock)
        sessionState = opt(.sessionState)
        intradayTimesZone = opt(.intradayTimesZone)
        asOf = opt(.asOf)
        lastDataTime = opt(.lastDataTime)
        stale = opt(.stale) ?? false
        waitingFor = opt(.waitingFor)
        problem = opt(.problem)
        note = opt(.note)
        display = opt(.display)
        displayDetail = opt(.displayDetail)
        frames = opt(.frames) ?? 0
        settledFrame = opt(.settledFrame) ?? 0
        missedVblanks = opt(.missedVblanks) ?? 0
        inputToFlipP50 = opt(.inputToFlipP50)
        inputToFlipP99 = opt(.inputToFlipP99)
        renderP50 = opt(.renderP50)
        renderP99 = opt(.renderP99)
        copyP50 = opt(.copyP50)
        copyP99 = opt(.copyP99)
        scanoutBytesPerFrame = opt(.scanoutBytesPerFrame)
        scanoutCopyFraction = opt(.scanoutCopyFraction)
        burnInShift = opt(.burnInShift)
        rotation = opt(.rotation)
        presentMethod = opt(.presentMethod)
        pacing = opt(.pacing)
        level = opt(.level)
        lux = opt(.lux)
        brightnessMeans = opt(.brightnessMeans)
        rssKB = opt(.rssKB)
        peakRSSKB = opt(.peakRSSKB)
        openFDs = opt(.openFDs)
        animating = opt(.animating) ?? false
        paused = opt(.paused) ?? false
        screenControl = opt(.screenControl)
        message = opt(.message)
        cec = opt(.cec)
        problems = list(.problems)
        alerts = list(.alerts)
        alertFirings = list(.alertFirings)
        outputs = list(.outputs)
        version = opt(.version)
        time = opt(.time) ?? 0
    }
}

/// An item of a list that decodes, or nil: one bad item does not cost the list.
private struct Lenient<T: Decodable>: Decodable {
    let value: T?

    init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
}

extension KioskStatus.Output: Codable {
    enum CodingKeys: String, CodingKey {
        case name, connector, mode, scene, state, flips, missedVblanks = "missed_vblanks"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(connector, forKey: .connector)
        try c.encode(mode, forKey: .mode)
        try c.encode(scene, forKey: .scene)
        try c.encode(state, forKey: .state)
        try c.encode(flips, forKey: .flips)
        try c.encode(missedVblanks, forKey: .missedVblanks)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func opt<T: Decodable>(_ key: CodingKeys) -> T? { try? c.decodeIfPresent(T.self, forKey: key) }
        self.init(name: opt(.name) ?? "", connector: opt(.connector), mode: opt(.mode), scene: opt(.scene),
                  state: opt(.state) ?? "", flips: opt(.flips) ?? 0, missedVblanks: opt(.missedVblanks) ?? 0)
    }
}

extension KioskProblem: Codable {
    enum CodingKeys: String, CodingKey { case file, line, key, message }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(line, forKey: .line)
        try c.encode(key, forKey: .key)
        try c.encode(message, forKey: .message)
    }

    /// Any object is a problem, however little of it is readable: the bridge counts them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func opt<T: Decodable>(_ key: CodingKeys) -> T? { try? c.decodeIfPresent(T.self, forKey: key) }
        self.init(file: opt(.file) ?? "", line: opt(.line) ?? 0, key: opt(.key) ?? "", message: opt(.message) ?? "")
    }
}

extension AlertFiring: Codable {
    enum CodingKeys: String, CodingKey { case name, instrument, kind, condition, firedAt = "fired_at" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(instrument, forKey: .instrument)
        try c.encode(kind, forKey: .kind)
        try c.encode(condition, forKey: .condition)
        try c.encode(firedAt, forKey: .firedAt)
    }

    /// A firing without its name, kind or time is none (nothing could tell it from another); the
    /// rest may be missing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try c.decode(String.self, forKey: .name), instrument: try? c.decodeIfPresent(String.self, forKey: .instrument),
                  kind: try c.decode(String.self, forKey: .kind), condition: (try? c.decodeIfPresent(String.self, forKey: .condition)) ?? "",
                  firedAt: try c.decode(Int64.self, forKey: .firedAt))
    }
}

// MARK: The texts

extension KioskStatus {
    /// The status as a JSON tree, members in the file's order.
    public var jsonValue: JSONValue {
        // Neither this type's encode(to:) nor the tree encoder throws; should one ever, an empty
        // object is written rather than the daemon stopped over its status file.
        (try? JSONTreeEncoder().encode(self)) ?? .object([])
    }

    /// The status file's text.
    public var json: String { jsonValue.prettyText }

    /// The same object on one line (a control socket's answer).
    public var compactJSON: String { jsonValue.compactText }

    /// The status in `text` (the file, or the control socket's line); nil unless it is a JSON object.
    public init?(json text: String) {
        guard let tree = JSONValue(parsing: text), tree.members != nil,
              let status = try? JSONTreeDecoder().decode(KioskStatus.self, from: tree) else { return nil }
        self = status
    }

    /// The keys `render --values` prints: what the picture says.
    public static let pictureKeys: Set<String> = ["instrument_name", "range", "scene", "price", "range_change", "range_change_percent",
                                                  "price_text", "change_text", "last_price", "previous_close", "day_change",
                                                  "day_change_percent",
                                                  "baseline", "baseline_kind", "session_state", "as_of",
                                                  "last_data_time", "waiting_for", "problem", "note", "alerts",
                                                  "intraday_times_zone", "day_low", "day_high", "low_52w", "high_52w", "volume",
                                                  "stats_text", "clock"]

    /// `key=value` lines in the file's order (strings as they are, absent values empty), for
    /// `render --values`. The lists of objects are left out: a problem is a line of its own on
    /// stderr, and an object is no one value.
    public func keyValueLines(only keys: Set<String>? = nil) -> String {
        let objectLists: Set<String> = [CodingKeys.problems.stringValue, CodingKeys.alertFirings.stringValue, CodingKeys.outputs.stringValue]
        func plain(_ v: JSONValue) -> String {
            switch v {
            case .null, .object: return ""
            case .bool(let b): return b ? "true" : "false"
            case .number(let text): return text
            // One line a key, whatever the text holds.
            case .string(let s): return s.filter { $0 != "\n" }
            case .array(let items): return items.map(plain).joined(separator: ",")
            }
        }
        var out = ""
        for m in jsonValue.members ?? [] where !objectLists.contains(m.key) && keys?.contains(m.key) ?? true {
            out += "\(m.key)=\(plain(m.value))\n"
        }
        return out
    }
}
