import Chart
import Feed

/// What the daemon is showing and how it is doing, for integrators and fleet monitoring: written as
/// `status.json` while it runs and printed as `key=value` lines by `render --values`. One flat
/// object, so `jq .price` or a `grep` reads it; absent values are JSON `null`.
public struct KioskStatus: Sendable, Equatable {
    public var instrumentID: String?
    public var instrumentName: String?
    public var range: String?
    public var scene: String?
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
    /// Filled in by the shell, which can measure them.
    /// The instrument's newest price, previous close and day change (`MarketData.dayQuote`): the
    /// same numbers as the tape, the tiles' day words, `ctl instruments` and the bridge. `price`,
    /// `range_change` are the header's: the shown range's (a scrubbed point's price while scrubbing).
    public var lastPrice: Double?
    public var previousClose: Double?
    public var dayChange: Double?
    public var dayChangePercent: Double?
    /// The zone offset-less intraday times were read in (nil: the file gave offsets).
    public var intradayTimesZone: String?
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
        public var scene: String
        /// `running`, or `waiting: ` and why.
        public var state: String
        /// Flips completed on this output since the daemon started.
        public var flips: Int
        public var missedVblanks: Int

        public init(name: String, connector: String?, mode: String?, scene: String, state: String, flips: Int, missedVblanks: Int) {
            self.name = name
            self.connector = connector
            self.mode = mode
            self.scene = scene
            self.state = state
            self.flips = flips
            self.missedVblanks = missedVblanks
        }

        var json: String {
            "{\"name\": \(jsonString(name)), \"connector\": \(jsonString(connector)), \"mode\": \(jsonString(mode)), "
                + "\"scene\": \(jsonString(scene)), \"state\": \(jsonString(state)), \"flips\": \(flips), "
                + "\"missed_vblanks\": \(missedVblanks)}"
        }
    }

    public init() {}

    static func json(_ f: AlertFiring) -> String {
        "{\"name\": \(jsonString(f.name)), \"instrument\": \(jsonString(f.instrument)), \"kind\": \(jsonString(f.kind)), "
            + "\"condition\": \(jsonString(f.condition)), \"fired_at\": \(f.firedAt)}"
    }

    /// The numbers of one frame (`render --values`, and the picture part of the status file).
    public init(values v: ScreenValues) {
        instrumentName = v.instrument
        range = v.range.rawValue
        scene = v.scene
        price = v.price
        change = v.change
        changePercent = v.changePercent
        priceText = v.priceText.isEmpty ? nil : v.priceText
        changeText = v.changeText.isEmpty ? nil : v.changeText
        baseline = v.baseline
        baselineKind = v.baseline == nil ? nil : v.baselineKind
        lastDataTime = v.lastDataTime
        waitingFor = v.waitingFor
        note = v.note.isEmpty ? nil : v.note
        intradayTimesZone = v.intradayTimesZone
        lastPrice = v.day?.price
        previousClose = v.day?.previousClose
        dayChange = v.day?.change
        dayChangePercent = v.day?.changePercent
        dayLow = v.stats?.dayLow
        dayHigh = v.stats?.dayHigh
        low52w = v.stats?.yearLow
        high52w = v.stats?.yearHigh
        volume = v.stats?.volume
        statsText = v.statsText.isEmpty ? nil : v.statsText
        clock = v.clock.isEmpty ? nil : v.clock
    }

    /// The keys `render --values` prints: what the picture says.
    public static let pictureKeys: Set<String> = ["instrument_name", "range", "scene", "price", "range_change", "range_change_percent",
                                                  "price_text", "change_text", "last_price", "previous_close", "day_change",
                                                  "day_change_percent",
                                                  "baseline", "baseline_kind", "session_state", "as_of",
                                                  "last_data_time", "waiting_for", "problem", "note", "alerts",
                                                  "intraday_times_zone", "day_low", "day_high", "low_52w", "high_52w", "volume",
                                                  "stats_text", "clock"]

    private enum Value {
        case text(String?), number(Double?), raw(String), list([String])
        /// Objects, one per line in the file (a person reads it), on one line on the socket.
        case objects([String])

        func json(pretty: Bool) -> String {
            guard case .objects(let items) = self else { return json }
            guard pretty, !items.isEmpty else { return "[" + items.joined(separator: ", ") + "]" }
            return "[\n" + items.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]"
        }

        var json: String {
            switch self {
            case .text(let s): return jsonString(s)
            case .number(let v): return jsonNumber(v)
            case .raw(let r): return r
            case .list(let l): return "[" + l.map { jsonString($0) }.joined(separator: ", ") + "]"
            case .objects(let items): return "[" + items.joined(separator: ", ") + "]"
            }
        }

        var plain: String {
            switch self {
            case .text(let s): return (s ?? "").filter { $0 != "\n" }
            case .number(let v): return v.map { jsonNumber($0) == "null" ? "" : jsonNumber($0) } ?? ""
            case .raw(let r): return r == "null" ? "" : r
            case .list(let l): return l.joined(separator: ",")
            case .objects(let items): return String(items.count)
            }
        }
    }

    /// The fields in file order.
    private var fields: [(String, Value)] {
        [("instrument_id", .text(instrumentID)), ("instrument_name", .text(instrumentName)),
         ("range", .text(range)), ("scene", .text(scene)),
         ("price", .number(price)), ("range_change", .number(change)), ("range_change_percent", .number(changePercent)),
         ("last_price", .number(lastPrice)), ("previous_close", .number(previousClose)),
         ("day_change", .number(dayChange)), ("day_change_percent", .number(dayChangePercent)),
         ("price_text", .text(priceText)), ("change_text", .text(changeText)),
         ("baseline", .number(baseline)), ("baseline_kind", .text(baselineKind)),
         ("day_low", .number(dayLow)), ("day_high", .number(dayHigh)), ("low_52w", .number(low52w)), ("high_52w", .number(high52w)),
         ("volume", .number(volume)), ("stats_text", .text(statsText)), ("clock", .text(clock)),
         ("session_state", .text(sessionState)),
         ("intraday_times_zone", .text(intradayTimesZone)),
         ("as_of", .raw(asOf.map(String.init) ?? "null")), ("last_data_time", .raw(lastDataTime.map(String.init) ?? "null")),
         ("stale", .raw(String(stale))), ("waiting_for", .text(waitingFor)), ("problem", .text(problem)), ("note", .text(note)), ("display", .text(display)),
         ("display_detail", .text(displayDetail)),
         ("frames", .raw(String(frames))), ("settled_frame", .raw(String(settledFrame))), ("missed_vblanks", .raw(String(missedVblanks))),
         ("input_to_flip_p50_ms", .number(inputToFlipP50)), ("input_to_flip_p99_ms", .number(inputToFlipP99)),
         ("render_p50_ms", .number(renderP50)), ("render_p99_ms", .number(renderP99)),
         ("copy_p50_ms", .number(copyP50)), ("copy_p99_ms", .number(copyP99)),
         ("scanout_bytes_per_frame", .number(scanoutBytesPerFrame.map { $0.rounded() })),
         ("scanout_copy_fraction", .number(scanoutCopyFraction)), ("burn_in_shift", .text(burnInShift)),
         ("rotation", .text(rotation)), ("present_method", .text(presentMethod)), ("pacing", .text(pacing)),
         ("level", .raw(level.map(String.init) ?? "null")), ("lux", .number(lux.map { ($0 * 10).rounded() / 10 })), ("brightness_means", .text(brightnessMeans)),
         ("rss_kb", .raw(rssKB.map(String.init) ?? "null")), ("peak_rss_kb", .raw(peakRSSKB.map(String.init) ?? "null")), ("open_fds", .raw(openFDs.map(String.init) ?? "null")),
         ("animating", .raw(String(animating))), ("paused", .raw(String(paused))),
         ("screen_control", .text(screenControl)), ("message", .text(message)),
         ("cec", .text(cec)),
         ("problems", .raw("[" + problems.map { p in
             "{\"file\": \(jsonString(p.file)), \"line\": \(p.line), \"key\": \(jsonString(p.key)), \"message\": \(jsonString(p.message))}"
         }.joined(separator: ", ") + "]")),
         ("alerts", .list(alerts)), ("alert_firings", .objects(alertFirings.map(Self.json))), ("outputs", .objects(outputs.map(\.json))),
         ("version", .text(version)), ("time", .number(time))]
    }

    /// The status file's text.
    public var json: String {
        "{\n" + fields.map { "  \"\($0.0)\": \($0.1.json(pretty: true))" }.joined(separator: ",\n") + "\n}\n"
    }

    /// The same object on one line (a control socket's answer).
    public var compactJSON: String {
        "{" + fields.map { "\"\($0.0)\": \($0.1.json)" }.joined(separator: ", ") + "}"
    }

    /// `key=value` lines (strings as they are, absent values empty), for `render --values`.
    /// Problems are left out: they are lines of their own on stderr.
    public func keyValueLines(only keys: Set<String>? = nil) -> String {
        var out = ""
        for (key, value) in fields where !["problems", "outputs", "alert_firings"].contains(key) && keys?.contains(key) ?? true {
            out += "\(key)=\(value.plain)\n"
        }
        return out
    }
}

private func jsonString(_ s: String?) -> String { s.map(FetchStatus.quoted) ?? "null" }

/// Numbers as JSON allows them: no NaN or infinity (null instead), at most 6 decimals.
func jsonNumber(_ v: Double?) -> String {
    guard let v, v.isFinite else { return "null" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    // Six decimals by scaling, where scaling cannot overflow (1.8e302 × 1e6 is inf, which is no
    // JSON); larger values have no decimals worth rounding. Swift writes them as JSON allows (1e+302).
    guard abs(v) < 1e300 else { return String(v) }
    let scaled = (v * 1e6).rounded() / 1e6
    return scaled.isFinite ? String(scaled) : String(v)
}
