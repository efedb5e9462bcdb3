// Bridge: tickerboard-mqtt, the Home Assistant side of the control socket. It runs as its own
// sandboxed service with the network; the display daemon stays offline and hears from it only as
// a control client. This file is the pure part: which entities Home Assistant's MQTT discovery is
// told about, which control request each command topic becomes, and what state is published.
import Control
import Feed
import StatusModel

/// One instrument as `ctl instruments` reports it.
public struct BridgeInstrument: Sendable, Equatable {
    public var id: String
    public var name: String
    public var currency: String
    public var price: Double?
    public var change: Double?
    public var changePercent: Double?
    public var sessionState: String?
    public var stale: Bool
    /// Unix time of its newest data (Home Assistant shows the age), and whether it has a problem.
    public var lastDataTime: Int64?
    public var problem = false

    public init(id: String, name: String, currency: String, price: Double? = nil, change: Double? = nil,
                changePercent: Double? = nil, sessionState: String? = nil, stale: Bool = false) {
        self.id = id
        self.name = name
        self.currency = currency
        self.price = price
        self.change = change
        self.changePercent = changePercent
        self.sessionState = sessionState
        self.stale = stale
    }
}

public struct BridgeMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool

    public init(_ topic: String, _ payload: String, retain: Bool = true) {
        self.topic = topic
        self.payload = Array(payload.utf8)
        self.retain = retain
    }
}

/// What an incoming command topic asks for.
public enum BridgeAction: Sendable, Equatable {
    case request(ControlCommand)
    case screenshot
    case ignore(String)
}

public struct BridgeModel: Sendable {
    public let settings: MQTTSettings
    public let version: String

    public init(settings: MQTTSettings, version: String) {
        self.settings = settings
        self.version = version
    }

    public var base: String { settings.base }
    public var availabilityTopic: String { base + "/availability" }
    public var screenshotTopic: String { base + "/screenshot" }
    /// Every command arrives on `BASE/<object>/set`.
    public var subscription: String { base + "/+/set" }

    /// A topic-safe object id for an instrument id, one per id (issue 54: `SAP.DE` and `SAP-DE` both
    /// folded to `sap_de` and shared one sensor). An id of capital letters and digits (up to 48) is
    /// only lowercased (`AAPL` -> `aapl`); any other loses something in the folding and gets the
    /// 32-bit FNV-1a of its UTF-8 bytes after an underscore (`SAP.DE` -> `sap_de_` + 8 hex), which
    /// a lowercased id can never end with, as it has no underscore.
    public static func objectID(_ id: String) -> String {
        let plain = !id.isEmpty && id.utf8.count <= 48 && id.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        if plain { return id.lowercased() }
        let mapped = id.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
        return String(mapped.prefix(39)) + "_" + StableHash.hex8(StableHash.fnv1a32(Array(id.utf8)))
    }

    /// The object ids of an instrument's discovery configs (sensors `price_`, `change_`, `market_`,
    /// and the diagnostic `data_`, its newest data's time).
    public static let instrumentSensorPrefixes = ["price_", "change_", "market_", "data_"]

    /// The kinds of alert, as the `alert` event entity's `event_types`.
    public static let alertKinds = ["above", "below", "move", "stale"]
    public var alertEventTopic: String { base + "/alert/event" }

    private var device: String {
        "{\"identifiers\": [\(q("tickerboard_" + settings.nodeID))], \"name\": \(q("Tickerboard " + settings.nodeID)), "
            + "\"manufacturer\": \"Tickerboard\", \"model\": \"Stock-ticker display\", \"sw_version\": \(q(version))}"
    }

    private func config(_ component: String, _ object: String, _ fields: [String]) -> BridgeMessage {
        // default_entity_id (domain.slug) replaced object_id in Home Assistant 2025.10; object_id
        // stopped working in 2026.4 (Home Assistant's own warning names both).
        let common = ["\"unique_id\": \(q("tickerboard_\(settings.nodeID)_\(object)"))",
                      "\"default_entity_id\": \(q("\(component).tickerboard_\(Self.slug(settings.nodeID))_\(object)"))",
                      "\"availability_topic\": \(q(availabilityTopic))", "\"device\": \(device)"]
        return BridgeMessage(configTopic(component, object), "{" + (fields + common).joined(separator: ", ") + "}")
    }

    /// An entity id's part as Home Assistant writes them: lowercase, `-` as `_`.
    static func slug(_ s: String) -> String { String(s.lowercased().map { $0 == "-" ? "_" : $0 }) }

    /// The retained discovery topic of `component`/`object` (`homeassistant/sensor/NODE/price_aapl/config`).
    public func configTopic(_ component: String, _ object: String) -> String {
        "\(settings.discoveryPrefix)/\(component)/\(settings.nodeID)/\(object)/config"
    }

    /// Where retained discovery of this node's instrument sensors is read back at each connect, to
    /// clear what is no longer configured (also what was removed while the bridge was down).
    public var instrumentConfigSubscription: String { "\(settings.discoveryPrefix)/sensor/\(settings.nodeID)/+/config" }

    /// The instrument object id of a retained sensor config topic, nil for any other topic.
    public func instrumentObject(ofConfigTopic topic: String) -> String? {
        let head = "\(settings.discoveryPrefix)/sensor/\(settings.nodeID)/"
        guard topic.hasPrefix(head), topic.hasSuffix("/config") else { return nil }
        let object = String(topic.dropFirst(head.count).dropLast(7))
        guard let prefix = Self.instrumentSensorPrefixes.first(where: { object.hasPrefix($0) }) else { return nil }
        let id = String(object.dropFirst(prefix.count))
        return id.isEmpty || id.contains("/") ? nil : id
    }

    /// Empty retained payloads for an instrument that is no longer configured: Home Assistant
    /// removes its sensors, and the broker forgets its retained state.
    public func removal(ofInstrumentObject object: String) -> [BridgeMessage] {
        Self.instrumentSensorPrefixes.map { BridgeMessage(configTopic("sensor", $0 + object), "") }
            + [BridgeMessage("\(base)/instrument/\(object)/state", "")]
    }

    private func select(_ object: String, _ name: String, _ options: [String], icon: String) -> BridgeMessage {
        config("select", object, ["\"name\": \(q(name))", "\"icon\": \(q(icon))",
                                  "\"command_topic\": \(q("\(base)/\(object)/set"))", "\"state_topic\": \(q("\(base)/\(object)/state"))",
                                  "\"options\": [" + options.map(q).joined(separator: ", ") + "]"])
    }

    /// A read-only diagnostic sensor (Home Assistant lists it under the device's diagnostics).
    private func diagnostic(_ object: String, _ name: String, _ fields: [String]) -> BridgeMessage {
        config("sensor", object, ["\"name\": \(q(name))", "\"state_topic\": \(q("\(base)/\(object)/state"))",
                                  "\"entity_category\": \"diagnostic\""] + fields)
    }

    private func button(_ object: String, _ name: String, icon: String) -> BridgeMessage {
        config("button", object, ["\"name\": \(q(name))", "\"icon\": \(q(icon))", "\"command_topic\": \(q("\(base)/\(object)/set"))"])
    }

    /// The retained discovery configs: the screen as a light, selects for instrument, range, scene
    /// and screen mode, a cycling switch, buttons, a message text, a sensor per instrument for its
    /// price, change and market, and the picture on the glass as an image; the wall's health as
    /// diagnostic entities (a problem, missed vblanks, memory, the version, the SoC's temperature
    /// where the machine has a thermal zone, each instrument's newest data), and an event entity
    /// that fires when an alert does.
    public func discovery(instruments: [BridgeInstrument], ranges: [String], scenes: [String],
                         temperature: Bool = false) -> [BridgeMessage] {
        var out: [BridgeMessage] = [
            config("light", "screen", ["\"name\": \"Screen\"", "\"icon\": \"mdi:monitor\"",
                                       "\"command_topic\": \(q(base + "/screen/set"))", "\"state_topic\": \(q(base + "/screen/state"))",
                                       "\"brightness_command_topic\": \(q(base + "/brightness/set"))",
                                       "\"brightness_state_topic\": \(q(base + "/brightness/state"))", "\"brightness_scale\": 100",
                                       "\"payload_on\": \"ON\"", "\"payload_off\": \"OFF\""]),
            select("instrument", "Instrument", instruments.map(\.id), icon: "mdi:finance"),
            select("range", "Range", ranges, icon: "mdi:calendar-range"),
            select("scene", "Scene", scenes, icon: "mdi:chart-line"),
            select("screen_mode", "Screen mode", ControlCommand.ScreenMode.allCases.map(\.rawValue), icon: "mdi:monitor-shimmer"),
            config("switch", "cycling", ["\"name\": \"Cycling\"", "\"icon\": \"mdi:play-pause\"",
                                         "\"command_topic\": \(q(base + "/cycling/set"))", "\"state_topic\": \(q(base + "/cycling/state"))",
                                         "\"payload_on\": \"ON\"", "\"payload_off\": \"OFF\""]),
            button("next", "Next instrument", icon: "mdi:skip-next"),
            button("reload", "Reload configuration", icon: "mdi:reload"),
            button("screenshot", "Take screenshot", icon: "mdi:camera"),
            config("text", "message", ["\"name\": \"Message\"", "\"icon\": \"mdi:message-alert\"", "\"max\": \(ControlCommand.messageCharacters)",
                                       "\"command_topic\": \(q(base + "/message/set"))", "\"state_topic\": \(q(base + "/message/state"))"]),
            config("sensor", "display", ["\"name\": \"Display\"", "\"icon\": \"mdi:monitor-dashboard\"",
                                         "\"state_topic\": \(q(base + "/display/state"))"]),
            config("image", "screen_picture", ["\"name\": \"Picture\"", "\"image_topic\": \(q(screenshotTopic))",
                                               "\"content_type\": \"image/png\""]),
            config("binary_sensor", "problem", ["\"name\": \"Problem\"", "\"device_class\": \"problem\"",
                                                "\"state_topic\": \(q(base + "/problem/state"))",
                                                "\"json_attributes_topic\": \(q(base + "/problem/attributes"))",
                                                "\"payload_on\": \"ON\"", "\"payload_off\": \"OFF\"", "\"entity_category\": \"diagnostic\""]),
            diagnostic("missed_vblanks", "Missed vblanks", ["\"icon\": \"mdi:monitor-eye\"", "\"state_class\": \"total_increasing\""]),
            diagnostic("memory", "Memory", ["\"device_class\": \"data_size\"", "\"unit_of_measurement\": \"MiB\"",
                                            "\"state_class\": \"measurement\"", "\"icon\": \"mdi:memory\""]),
            diagnostic("version", "Version", ["\"icon\": \"mdi:tag\""]),
            config("event", "alert", ["\"name\": \"Alert\"", "\"icon\": \"mdi:bell-ring\"", "\"state_topic\": \(q(alertEventTopic))",
                                      "\"event_types\": [" + Self.alertKinds.map(q).joined(separator: ", ") + "]"]),
        ]
        if temperature {
            out.append(diagnostic("soc_temperature", "SoC temperature", ["\"device_class\": \"temperature\"", "\"unit_of_measurement\": \"°C\"",
                                                                        "\"state_class\": \"measurement\""]))
        }
        for inst in instruments {
            let object = Self.objectID(inst.id)
            let state = "\(base)/instrument/\(object)/state"
            let unit = inst.currency.count == 3 && inst.currency.allSatisfy({ $0.isUppercase }) ? inst.currency : nil
            out.append(config("sensor", "price_\(object)", ["\"name\": \(q(inst.name + " price"))", "\"state_topic\": \(q(state))",
                                                            "\"value_template\": \"{{ value_json.price }}\"", "\"icon\": \"mdi:cash\"",
                                                            "\"state_class\": \"measurement\""]
                                                           + (unit.map { ["\"unit_of_measurement\": \(q($0))"] } ?? [])))
            out.append(config("sensor", "change_\(object)", ["\"name\": \(q(inst.name + " change"))", "\"state_topic\": \(q(state))",
                                                             "\"value_template\": \"{{ value_json.change_percent }}\"",
                                                             "\"unit_of_measurement\": \"%\"", "\"icon\": \"mdi:trending-up\"",
                                                             "\"state_class\": \"measurement\""]))
            out.append(config("sensor", "market_\(object)", ["\"name\": \(q(inst.name + " market"))", "\"state_topic\": \(q(state))",
                                                             "\"value_template\": \"{{ value_json.market }}\"", "\"icon\": \"mdi:store-clock\""]))
            out.append(config("sensor", "data_\(object)", ["\"name\": \(q(inst.name + " data"))", "\"state_topic\": \(q(state))",
                                                           "\"value_template\": \"{{ value_json.last_data }}\"", "\"device_class\": \"timestamp\"",
                                                           "\"entity_category\": \"diagnostic\""]))
        }
        return out
    }

    /// The state topics for what the daemon says now (retained, so a restarted Home Assistant has them).
    public func state(_ status: KioskStatus, instruments: [BridgeInstrument], temperature: Double? = nil) -> [BridgeMessage] {
        let screenOn = status.display == "presenting"
        var out = [
            BridgeMessage(base + "/screen/state", screenOn ? "ON" : "OFF"),
            BridgeMessage(base + "/brightness/state", String(screenOn ? status.level ?? 100 : 0)),
            BridgeMessage(base + "/screen_mode/state", status.screenControl ?? "auto"),
            BridgeMessage(base + "/cycling/state", status.paused ? "OFF" : "ON"),
            BridgeMessage(base + "/display/state", status.display ?? "unknown"),
            BridgeMessage(base + "/message/state", status.message ?? ""),
            BridgeMessage(base + "/problem/state", status.problem != nil || !status.problems.isEmpty ? "ON" : "OFF"),
            BridgeMessage(base + "/problem/attributes", "{\"problem\": \(status.problem.map(q) ?? "null"), \"listed\": \(status.problems.count)}"),
            BridgeMessage(base + "/version/state", version),
            BridgeMessage(base + "/missed_vblanks/state", String(status.missedVblanks)),
        ]
        if let kb = status.rssKB { out.append(BridgeMessage(base + "/memory/state", n((Double(kb) / 1024 * 10).rounded() / 10))) }
        if let t = temperature { out.append(BridgeMessage(base + "/soc_temperature/state", n(t))) }
        if let id = status.instrumentID { out.append(BridgeMessage(base + "/instrument/state", id)) }
        if let range = status.range { out.append(BridgeMessage(base + "/range/state", range)) }
        if let scene = status.scene { out.append(BridgeMessage(base + "/scene/state", scene.name)) }
        for inst in instruments {
            let fields = ["\"price\": \(n(inst.price))", "\"change\": \(n(inst.change))", "\"change_percent\": \(n(inst.changePercent.map { ($0 * 100).rounded() / 100 }))",
                          "\"market\": \(inst.sessionState.map(q) ?? "null")", "\"stale\": \(inst.stale)",
                          "\"last_data\": \(inst.lastDataTime.map { q(Self.iso8601($0)) } ?? "null")", "\"problem\": \(inst.problem)"]
            out.append(BridgeMessage("\(base)/instrument/\(Self.objectID(inst.id))/state", "{" + fields.joined(separator: ", ") + "}"))
        }
        return out
    }

    /// A Unix time as Home Assistant's timestamp sensors take it: ISO 8601 in UTC.
    static func iso8601(_ unix: Int64) -> String {
        let t = CivilDateTime(unixTime: unix)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(t.date.year)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(t.date.month))-\(two(t.date.day))T"
            + "\(two(t.hour)):\(two(t.minute)):\(two(t.second))+00:00"
    }

    /// The alert events to fire for firings not seen before (`seen` holds name and time of each
    /// one fired or passed over). Firings from before `since` (the bridge's start) are passed
    /// over: a restarted bridge does not fire again what Home Assistant heard already. Not
    /// retained: an event is a moment, not a state.
    public func alertEvents(_ firings: [AlertFiring], seen: inout Set<String>, since: Int64) -> [BridgeMessage] {
        var out: [BridgeMessage] = []
        for f in firings {
            let key = "\(f.name)@\(f.firedAt)"
            guard !seen.contains(key) else { continue }
            seen.insert(key)
            guard f.firedAt >= since, Self.alertKinds.contains(f.kind) else { continue }
            let payload = "{\"event_type\": \(q(f.kind)), \"alert\": \(q(f.name)), \"instrument\": \(f.instrument.map(q) ?? "null"), "
                + "\"condition\": \(q(f.condition)), \"fired_at\": \(q(Self.iso8601(f.firedAt)))}"
            out.append(BridgeMessage(alertEventTopic, payload, retain: false))
        }
        return out
    }

    /// The SoC's temperature in °C from the thermal zones' `type` and `temp` (millidegrees) files:
    /// the zone named for the CPU or SoC (`cpu-thermal` on a Raspberry Pi, `x86_pkg_temp`), else the
    /// first; nil when none reads as a temperature between -40 and 150 °C.
    public static func socTemperature(zones: [(type: String, temp: String)]) -> Double? {
        func celsius(_ text: String) -> Double? {
            guard let milli = Int(text.trimmingSpaces), milli >= -40_000, milli <= 150_000 else { return nil }
            return (Double(milli) / 100).rounded() / 10
        }
        let named = zones.first { z in ["cpu", "soc", "pkg"].contains { z.type.lowercased().contains($0) } && celsius(z.temp) != nil }
        return (named ?? zones.first { celsius($0.temp) != nil }).flatMap { celsius($0.temp) }
    }

    /// The request a command topic's payload asks for.
    /// `retained`: the broker replays the message to every new subscriber (an automation that
    /// published with `retain: true`); a command is carried out when it is sent, never replayed at a
    /// bridge start or reconnect after the owner undid it (issue 54).
    public func action(topic: String, payload: String, retained: Bool = false) -> BridgeAction {
        guard topic.hasPrefix(base + "/"), topic.hasSuffix("/set") else { return .ignore("not a command topic: \(topic)") }
        if retained { return .ignore("a retained command on \(topic) (published with retain) is not replayed") }
        let object = String(topic.dropFirst(base.count + 1).dropLast(4))
        let value = payload.trimmingSpaces
        func onOff(_ on: ControlCommand, _ off: ControlCommand) -> BridgeAction {
            switch value.uppercased() {
            case "ON": return .request(on)
            case "OFF": return .request(off)
            default: return .ignore("\(object): expected ON or OFF, found \(value.prefix(20))")
            }
        }
        switch object {
        case "screen": return onOff(.screen(.on), .screen(.off))
        case "cycling": return onOff(.resume, .pause)
        case "screen_mode", "instrument", "range", "scene", "brightness", "message":
            guard !value.isEmpty else {
                return object == "message" ? .request(.clearMessage) : .ignore("\(object): an empty payload")
            }
            let line: String
            switch object {
            case "screen_mode": line = "screen " + ControlCommand.word(value)
            case "instrument": line = "show " + ControlCommand.word(value)
            case "message": line = "message " + ControlCommand.word(String(value.prefix(ControlCommand.messageCharacters)))
            default: line = object + " " + ControlCommand.word(value)
            }
            switch ControlCommand.parse(line) {
            case .success(let command): return .request(command)
            case .failure(let error): return .ignore("\(object): \(error.message)")
            }
        case "next": return .request(.next)
        case "reload": return .request(.reload)
        case "screenshot": return .screenshot
        default: return .ignore("unknown command topic \(topic)")
        }
    }
}

/// A JSON string literal (the same quoting as the status files).
private func q(_ s: String) -> String { FetchStatus.quoted(s) }

private func n(_ v: Double?) -> String {
    guard let v, v.isFinite else { return "null" }
    return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\r" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\r" || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
