import Bridge
import Foundation
import StatusModel
import Testing

/// The status file is a documented interface (docs/fleets-and-home-assistant.md, "The status
/// file"): the daemon writes it and answers `ctl status` with it, `tickerboard ctl` and the Home
/// Assistant bridge read it, all through one type. These tests hold that type to the page.
@Suite("Status contract")
struct StatusContractTests {
    /// Every field set, each to a value the file writes exactly (at most six decimals, a tenth of a
    /// lux, whole bytes), so what is read back equals what was written.
    static func everyFieldSet() -> KioskStatus {
        var s = KioskStatus()
        s.instrumentID = "AAPL"
        s.instrumentName = "Apple \"Inc\"\n\t\u{1}\u{7F} · é"
        s.range = "1M"
        s.scene = .chart
        s.price = 430.47
        s.change = -36.54
        s.changePercent = -7.824249
        s.priceText = "$430.47"
        s.changeText = "▼ −36.54  (−7.82%)"
        s.baseline = 467.01
        s.baselineKind = "first"
        s.sessionState = "closed"
        s.asOf = 1_362_171_600
        s.lastDataTime = 1_362_096_000
        s.stale = true
        s.waitingFor = "waiting for AAPL.csv"
        s.problem = "yahoo unreachable"
        s.note = "updated 1 Mar 2013 · stale"
        s.dayLow = 429.98
        s.dayHigh = 438.1799
        s.low52w = 419
        s.high52w = 705.07
        s.volume = 19_730_300
        s.statsText = "Day 429.98–438.18"
        s.clock = "16:00"
        s.display = "presenting"
        s.version = "1.2.3"
        s.frames = 812
        s.settledFrame = 800
        s.missedVblanks = 3
        s.inputToFlipP50 = 12.5
        s.inputToFlipP99 = 30.25
        s.renderP50 = 1.72
        s.renderP99 = 2.5
        s.copyP50 = 0.45
        s.copyP99 = 0.65
        s.scanoutBytesPerFrame = 8_294_400
        s.scanoutCopyFraction = 0.174
        s.burnInShift = "copy"
        s.rotation = "none"
        s.presentMethod = "atomic"
        s.pacing = "vblank"
        s.lastPrice = 430.47
        s.previousClose = 441.4
        s.dayChange = -10.93
        s.dayChangePercent = -2.476212
        s.intradayTimesZone = "Europe/Berlin"
        s.rssKB = 34816
        s.displayDetail = "812 (labwc) holds the screen (DRM master)"
        s.peakRSSKB = 40000
        s.openFDs = 23
        s.level = 40
        s.lux = 123.5
        s.brightnessMeans = "software"
        s.animating = true
        s.paused = true
        s.screenControl = "auto"
        s.message = "Closed early"
        s.cec = "tv-on"
        s.problems = [KioskProblem(file: "t.conf", line: 18, key: "time-zone", message: "unknown time zone Europe/Frankfurt"),
                      KioskProblem(file: "fonts", line: 0, key: "", message: "no \"font\"")]
        s.alerts = ["aapl-high", "stale-feed"]
        s.alertFirings = [AlertFiring(name: "aapl-high", instrument: "AAPL", kind: "above", condition: "above 300", firedAt: 1_733_436_000),
                          AlertFiring(name: "stale-feed", instrument: nil, kind: "stale", condition: "stale 2h", firedAt: 1_733_400_000)]
        s.outputs = [KioskStatus.Output(name: "first", connector: "Virtual-1", mode: "1024x768@60", scene: .chart, state: "running",
                                        flips: 812, missedVblanks: 3),
                     KioskStatus.Output(name: "second", connector: nil, mode: nil, scene: .tape, state: "waiting: unplugged",
                                        flips: 0, missedVblanks: 0)]
        s.time = 1_733_436_000.5
        return s
    }

    /// The keys docs/fleets-and-home-assistant.md's "The status file" names, in its order: the
    /// page is the contract, so the list is copied from it, not from the code.
    static let documentedKeys = [
        "instrument_id", "instrument_name", "range", "scene", "price", "range_change", "range_change_percent",
        "price_text", "change_text", "last_price", "previous_close", "day_change", "day_change_percent",
        "intraday_times_zone", "baseline", "baseline_kind", "day_low", "day_high", "low_52w", "high_52w", "volume",
        "stats_text", "clock", "session_state", "as_of", "last_data_time", "stale", "waiting_for", "problem", "display",
        "display_detail", "frames", "settled_frame", "missed_vblanks", "input_to_flip_p50_ms", "input_to_flip_p99_ms",
        "render_p50_ms", "render_p99_ms", "copy_p50_ms", "copy_p99_ms", "scanout_bytes_per_frame", "scanout_copy_fraction",
        "burn_in_shift", "rotation", "present_method", "pacing", "level", "lux", "brightness_means", "rss_kb", "peak_rss_kb",
        "open_fds", "animating", "paused", "screen_control", "message", "cec", "problems", "alerts", "alert_firings",
        "outputs", "version", "time", "note",
    ]

    /// The objects in the lists, as the same page writes them (`problems` (each `{file, line, key,
    /// message}`)).
    static let documentedObjects = [
        "problems": ["file", "line", "key", "message"],
        "alert_firings": ["name", "instrument", "kind", "condition", "fired_at"],
        "outputs": ["name", "connector", "mode", "scene", "state", "flips", "missed_vblanks"],
    ]

    /// The page's section "The status file", up to the next heading.
    static func documentation() throws -> String {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        let page = try String(contentsOfFile: root + "/docs/fleets-and-home-assistant.md", encoding: .utf8)
        let start = try #require(page.range(of: "## The status file\n"))
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// Each object's keys in `value`, with the path to it, wherever it is nested.
    static func objects(in value: JSONValue, at path: String = "") -> [(path: String, keys: [String])] {
        switch value {
        case .object(let members):
            return [(path, members.map(\.key))] + members.flatMap { objects(in: $0.value, at: path + "." + $0.key) }
        case .array(let items):
            return items.enumerated().flatMap { objects(in: $1, at: path + "[\($0)]") }
        default:
            return []
        }
    }

    @Test("the list of keys here is the page's: each is named there, and so is each list's object")
    func keysAreThePages() throws {
        let section = try Self.documentation()
        for key in Self.documentedKeys { #expect(section.contains("`\(key)`"), "\(key) is not in the page") }
        for (list, keys) in Self.documentedObjects {
            #expect(section.contains("`{" + keys.joined(separator: ", ") + "}`"), "\(list)'s objects are not in the page")
        }
        #expect(Set(Self.documentedKeys).count == Self.documentedKeys.count)
    }

    @Test("a status with every field set is written with each documented key once, objects included, in the file and on the socket")
    func everyKeyOnce() throws {
        let status = Self.everyFieldSet()
        for text in [status.json, status.compactJSON] {
            let tree = try #require(JSONValue(parsing: text), "\(text)")
            let objects = Self.objects(in: tree)
            for (path, keys) in objects {
                #expect(Set(keys).count == keys.count, "a key twice in \(path.isEmpty ? "the status" : path): \(keys)")
            }
            let top = try #require(tree.members)
            #expect(Set(top.map(\.key)) == Set(Self.documentedKeys))
            #expect(top.allSatisfy { $0.value != .null && $0.value != .array([]) }, "every field set: \(top.filter { $0.value == .null || $0.value == .array([]) }.map(\.key))")
            for (list, keys) in Self.documentedObjects {
                let found = objects.filter { $0.path.hasPrefix("." + list + "[") }
                #expect(found.count == 2, "\(list)")
                #expect(found.allSatisfy { $0.keys == keys }, "\(list): \(found)")
            }
        }
    }

    @Test("what is written reads back equal: through ctl's reader, JSONDecoder and the bridge; and JSONEncoder's text through ctl's")
    func roundTrip() throws {
        let status = Self.everyFieldSet()
        #expect(KioskStatus(json: status.json) == status)
        #expect(KioskStatus(json: status.compactJSON) == status)
        #expect(try JSONDecoder().decode(KioskStatus.self, from: Data(status.json.utf8)) == status)
        #expect(BridgeModel.status(fromJSON: status.compactJSON) == status)
        let foundation = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        #expect(KioskStatus(json: foundation) == status)
        #expect(KioskStatus(json: KioskStatus().json) == KioskStatus())
    }

    @Test("each key keeps its JSON type: strings, numbers, booleans and lists, and null for each value not known")
    func valueTypes() throws {
        let strings: Set = ["instrument_id", "instrument_name", "range", "scene", "price_text", "change_text", "baseline_kind", "stats_text",
                            "clock", "session_state", "intraday_times_zone", "waiting_for", "problem", "note", "display", "display_detail",
                            "burn_in_shift", "rotation", "present_method", "pacing", "brightness_means", "screen_control", "message",
                            "cec", "version"]
        let counts: Set = ["frames", "settled_frame", "missed_vblanks"]
        let booleans: Set = ["stale", "animating", "paused"]
        let lists: Set = ["problems", "alerts", "alert_firings", "outputs"]
        let numbers = Set(Self.documentedKeys).subtracting(strings).subtracting(booleans).subtracting(lists)
        for m in try #require(JSONValue(parsing: Self.everyFieldSet().json)?.members) {
            switch m.value {
            case .string: #expect(strings.contains(m.key), "\(m.key)")
            case .number: #expect(numbers.contains(m.key), "\(m.key)")
            case .bool: #expect(booleans.contains(m.key), "\(m.key)")
            case .array: #expect(lists.contains(m.key), "\(m.key)")
            default: Issue.record("\(m.key): \(m.value)")
            }
        }
        // Nothing known: every string and every number but the counts and the time is null, never left out.
        for m in try #require(JSONValue(parsing: KioskStatus().json)?.members) {
            if strings.contains(m.key) || numbers.subtracting(counts).subtracting(["time"]).contains(m.key) {
                #expect(m.value == .null, "\(m.key)")
            } else {
                #expect(m.value != .null, "\(m.key)")
            }
        }
        // NaN and infinity are no JSON: null, as they always were.
        var odd = KioskStatus()
        odd.price = .nan
        odd.lux = .infinity
        let members = try #require(JSONValue(parsing: odd.compactJSON)?.members)
        #expect(members.first { $0.key == "price" }?.value == .null && members.first { $0.key == "lux" }?.value == .null)
    }

    /// The text the string-built writer wrote for the same status, but for `problems`, now one
    /// object a line like `alert_firings` and `outputs`: the order is `render --values`' too.
    @Test("the file's text: one member a line in the established order, lists of objects one a line")
    func fileText() {
        let expected = #"""
        {
          "instrument_id": "AAPL",
          "instrument_name": "Apple \"Inc\"\n\t\u0001\u007f · é",
          "range": "1M",
          "scene": "chart",
          "price": 430.47,
          "range_change": -36.54,
          "range_change_percent": -7.824249,
          "last_price": 430.47,
          "previous_close": 441.4,
          "day_change": -10.93,
          "day_change_percent": -2.476212,
          "price_text": "$430.47",
          "change_text": "▼ −36.54  (−7.82%)",
          "baseline": 467.01,
          "baseline_kind": "first",
          "day_low": 429.98,
          "day_high": 438.1799,
          "low_52w": 419,
          "high_52w": 705.07,
          "volume": 19730300,
          "stats_text": "Day 429.98–438.18",
          "clock": "16:00",
          "session_state": "closed",
          "intraday_times_zone": "Europe/Berlin",
          "as_of": 1362171600,
          "last_data_time": 1362096000,
          "stale": true,
          "waiting_for": "waiting for AAPL.csv",
          "problem": "yahoo unreachable",
          "note": "updated 1 Mar 2013 · stale",
          "display": "presenting",
          "display_detail": "812 (labwc) holds the screen (DRM master)",
          "frames": 812,
          "settled_frame": 800,
          "missed_vblanks": 3,
          "input_to_flip_p50_ms": 12.5,
          "input_to_flip_p99_ms": 30.25,
          "render_p50_ms": 1.72,
          "render_p99_ms": 2.5,
          "copy_p50_ms": 0.45,
          "copy_p99_ms": 0.65,
          "scanout_bytes_per_frame": 8294400,
          "scanout_copy_fraction": 0.174,
          "burn_in_shift": "copy",
          "rotation": "none",
          "present_method": "atomic",
          "pacing": "vblank",
          "level": 40,
          "lux": 123.5,
          "brightness_means": "software",
          "rss_kb": 34816,
          "peak_rss_kb": 40000,
          "open_fds": 23,
          "animating": true,
          "paused": true,
          "screen_control": "auto",
          "message": "Closed early",
          "cec": "tv-on",
          "problems": [
            {"file": "t.conf", "line": 18, "key": "time-zone", "message": "unknown time zone Europe/Frankfurt"},
            {"file": "fonts", "line": 0, "key": "", "message": "no \"font\""}
          ],
          "alerts": ["aapl-high", "stale-feed"],
          "alert_firings": [
            {"name": "aapl-high", "instrument": "AAPL", "kind": "above", "condition": "above 300", "fired_at": 1733436000},
            {"name": "stale-feed", "instrument": null, "kind": "stale", "condition": "stale 2h", "fired_at": 1733400000}
          ],
          "outputs": [
            {"name": "first", "connector": "Virtual-1", "mode": "1024x768@60", "scene": "chart", "state": "running", "flips": 812, "missed_vblanks": 3},
            {"name": "second", "connector": null, "mode": null, "scene": "tape", "state": "waiting: unplugged", "flips": 0, "missed_vblanks": 0}
          ],
          "version": "1.2.3",
          "time": 1733436000.5
        }
        """#
        #expect(Self.everyFieldSet().json == expected + "\n")
    }

    @Test("the JSON reader takes JSON only, and no deeper than it allows")
    func reader() {
        for bad in ["", "{", "{\"a\" 1}", "{\"a\": 1,}", "[1,]", "01", "1.", "-", ".5", "+1", "tru", "\"\u{1}\"", "\"\\x\"", "{} {}"] {
            #expect(JSONValue(parsing: bad) == nil, "\(bad)")
        }
        #expect(JSONValue(parsing: String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) == nil)
        #expect(JSONValue(parsing: String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) != nil)
        #expect(JSONValue(parsing: #" {"a": [true, false, null, -0.5e-3], "b": "\u00e9\ud83d\ude00\/"} "#)
            == .object([.init("a", .array([.bool(true), .bool(false), .null, .number("-0.5e-3")])), .init("b", .string("é😀/"))]))
        #expect(JSONValue(parsing: "\u{FEFF}{}") == .object([]))
        #expect(KioskStatus(json: "[]") == nil && KioskStatus(json: "not json") == nil)
    }
}
