import Glibc
import StatusModel
import Testing

@testable import Bridge
@testable import Control

/// The Home Assistant bridge's decisions: which entities discovery announces, which request each
/// command topic becomes, and the state it publishes.
@Suite("MQTT bridge model")
struct BridgeModelTests {
    var settings: MQTTSettings {
        var s = MQTTSettings()
        _ = s.apply("node-id", "hall")
        return s
    }

    let instruments = [BridgeInstrument(id: "AAPL", name: "Apple", currency: "USD", price: 190.5, change: 1.5, changePercent: 0.7925,
                                        sessionState: "open"),
                       BridgeInstrument(id: "SAP.DE", name: "SAP", currency: "EUR"),
                       BridgeInstrument(id: "VOD.L", name: "Vodafone", currency: "GBp")]

    @Test("the daemon's answers are read a field at a time: a bad field is left out, not the answer")
    func oneBadField() throws {
        // Hand-written answers in the shape `ctl instruments` and `ctl status` give, with a string
        // where a number belongs, an id that is a number, a level past 100 and a value 1e303.
        let listing = try #require(BridgeModel.listing(fromJSON: """
            {"instruments": [{"id": "A", "name": "Alpha", "currency": "USD", "price": "inf", "change": 1.5, "stale": true},
                             {"id": 5, "price": 2}, {"id": "B", "price": 1e303}], "ranges": ["1D", 7, "1Y"], "scenes": ["chart"]}
            """))
        #expect(listing.instruments.map(\.id) == ["A", "B"])
        #expect(listing.instruments[0].price == nil && listing.instruments[0].change == 1.5 && listing.instruments[0].stale)
        #expect(listing.instruments[1].price == 1e303)
        #expect(listing.ranges == ["1D", "1Y"])
        let status = try #require(BridgeModel.status(fromJSON: """
            {"instrument_id": "A", "display": "presenting", "level": 250, "paused": true, "settled_frame": 42}
            """))
        #expect(status.instrumentID == "A" && status.level == nil && status.paused && status.settledFrame == 42)
        #expect(BridgeModel.status(fromJSON: "not json") == nil)
        // What is published from it is JSON.
        let model = BridgeModel(settings: MQTTSettings(), version: "1")
        for m in model.state(status, instruments: listing.instruments) where m.topic.hasPrefix(model.base + "/instrument/") && m.topic != model.base + "/instrument/state" {
            let text = String(decoding: m.payload, as: UTF8.self)
            #expect(text.hasPrefix("{") && text.hasSuffix("}") && !text.contains("inf") && !text.contains("nan"), "\(text)")
        }
    }

    @Test("discovery: 17 entities and 4 sensors per instrument, each with the device, availability and a unique id")
    func discovery() {
        let model = BridgeModel(settings: settings, version: "1.2.3")
        let messages = model.discovery(instruments: instruments, ranges: ["1D", "1Y"], scenes: ["chart", "watchlist"])
        #expect(messages.count == 17 + 4 * 3)
        #expect(messages.allSatisfy { $0.retain && $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") })
        let byTopic = Dictionary(uniqueKeysWithValues: messages.map { ($0.topic, String(decoding: $0.payload, as: UTF8.self)) })
        let select = byTopic["homeassistant/select/hall/instrument/config"] ?? ""
        #expect(select.contains("\"options\": [\"AAPL\", \"SAP.DE\", \"VOD.L\"]"))
        #expect(select.contains("\"command_topic\": \"tickerboard/hall/instrument/set\""))
        #expect(byTopic["homeassistant/sensor/hall/price_sap_de_e26dcc8c/config"]?.contains("\"unit_of_measurement\": \"EUR\"") == true)
        // Pence are no ISO 4217 unit: no unit rather than a wrong one.
        #expect(byTopic["homeassistant/sensor/hall/price_vod_l_0b876178/config"]?.contains("unit_of_measurement") == false)
        for (_, payload) in byTopic {
            #expect(payload.contains("\"availability_topic\": \"tickerboard/hall/availability\""))
            #expect(payload.contains("\"sw_version\": \"1.2.3\""))
            #expect(payload.contains("\"unique_id\": \"tickerboard_hall_"))
        }
        #expect(Set(messages.map(\.topic)).count == messages.count)
    }

    /// Issue 54 item 3: ids were folded to [a-z0-9_] and cut to 48, so SAP.DE and SAP-DE shared one
    /// sensor. The suffixes are FNV-1a (32 bits) of the ids' UTF-8, computed with a Python loop
    /// (h = (h ^ byte) * 16777619 mod 2^32 from 2166136261), not by this code.
    @Test("object ids are one per instrument id: capitals and digits are lowercased, anything else gets a hash")
    func objectIDsAreInjective() {
        #expect(BridgeModel.objectID("AAPL") == "aapl")
        #expect(BridgeModel.objectID("SAP.DE") == "sap_de_e26dcc8c")
        #expect(BridgeModel.objectID("SAP-DE") == "sap_de_53685645")
        #expect(BridgeModel.objectID("aapl") == "aapl_55c66b0b")
        #expect(BridgeModel.objectID("^GSPC") == "_gspc_845d84ee")
        #expect(BridgeModel.objectID("日経") == "___8dcd93b7")
        #expect(BridgeModel.objectID("データ") == "____e3c8c8e4")
        let long = String(repeating: "A", count: 60)
        #expect(BridgeModel.objectID(long).count == 39 + 9)
        #expect(BridgeModel.objectID(long) != BridgeModel.objectID(long + "B"))
        // Every id in a set of look-alikes gets its own object id.
        let ids = ["SAP.DE", "SAP-DE", "SAP_DE", "sap.de", "SAPDE", "sapde", "日経", "データ", "ÄÖÜ", "AOU"]
        #expect(Set(ids.map(BridgeModel.objectID)).count == ids.count)
    }

    /// Issue 54 item 7: Home Assistant 2025.10 deprecated object_id ("Replace the "object_id":
    /// "X" option with "default_entity_id": "sensor.X" in your published discovery configuration
    /// ... This will stop working in Home Assistant Core 2026.4", its warning as users quoted it).
    @Test("discovery names the default entity id as domain.slug, and no object_id")
    func defaultEntityID() {
        var s = MQTTSettings()
        _ = s.apply("node-id", "Living-Room")
        let messages = BridgeModel(settings: s, version: "1").discovery(instruments: instruments, ranges: [], scenes: [])
        let byTopic = Dictionary(uniqueKeysWithValues: messages.map { ($0.topic, String(decoding: $0.payload, as: UTF8.self)) })
        #expect(byTopic["homeassistant/light/Living-Room/screen/config"]?.contains("\"default_entity_id\": \"light.tickerboard_living_room_screen\"") == true)
        #expect(byTopic["homeassistant/sensor/Living-Room/price_aapl/config"]?.contains("\"default_entity_id\": \"sensor.tickerboard_living_room_price_aapl\"") == true)
        #expect(messages.allSatisfy { !String(decoding: $0.payload, as: UTF8.self).contains("object_id") })
    }

    /// Issue 54 item 4: an instrument removed by a reload kept its retained discovery and state.
    @Test("a removed instrument's sensors are cleared with empty retained payloads; read-back topics name it")
    func removal() {
        let model = BridgeModel(settings: settings, version: "1")
        let messages = model.removal(ofInstrumentObject: "sap_de_e26dcc8c")
        #expect(messages.map(\.topic) == ["homeassistant/sensor/hall/price_sap_de_e26dcc8c/config",
                                         "homeassistant/sensor/hall/change_sap_de_e26dcc8c/config",
                                         "homeassistant/sensor/hall/market_sap_de_e26dcc8c/config",
                                         "homeassistant/sensor/hall/data_sap_de_e26dcc8c/config",
                                         "tickerboard/hall/instrument/sap_de_e26dcc8c/state"])
        #expect(messages.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(model.instrumentObject(ofConfigTopic: "homeassistant/sensor/hall/price_sap_de_e26dcc8c/config") == "sap_de_e26dcc8c")
        #expect(model.instrumentObject(ofConfigTopic: "homeassistant/sensor/hall/market_aapl/config") == "aapl")
        #expect(model.instrumentObject(ofConfigTopic: "homeassistant/sensor/hall/display/config") == nil)
        #expect(model.instrumentObject(ofConfigTopic: "homeassistant/sensor/other/price_aapl/config") == nil)
        #expect(model.instrumentObject(ofConfigTopic: "homeassistant/select/hall/price_aapl/config") == nil)
        #expect(model.instrumentConfigSubscription == "homeassistant/sensor/hall/+/config")
    }

    /// Issue 54 item 1: two walls made from one image shared node id `tickerboard` and client id
    /// `tickerboard-tickerboard`. The expected hash is FNV-1a 32 of "tickerboard-mqtt:" + the
    /// machine id, by a Python loop.
    @Test("without node-id the node and client ids come from the machine id; a given node-id keeps a unique client id")
    func machineIdentity() {
        let id = "7b6f1d2a9c3e4f5081a2b3c4d5e6f708\n"
        #expect(MachineIdentity.hash(machineID: id) == "ff4a7361")
        #expect(MachineIdentity.hash(machineID: "") == nil)
        #expect(MachineIdentity.hash(machineID: "uninitialized\n") == nil)
        #expect(MachineIdentity.hash(machineID: "7B6F1D2A9C3E4F5081A2B3C4D5E6F708") == nil)
        #expect(MachineIdentity.nodeID(machineHash: "ff4a7361") == "tickerboard-ff4a7361")
        #expect(MachineIdentity.clientID(nodeID: "tickerboard-ff4a7361", nodeIDGiven: false, machineHash: "ff4a7361") == "tickerboard-ff4a7361")
        #expect(MachineIdentity.clientID(nodeID: "hall", nodeIDGiven: true, machineHash: "ff4a7361") == "tickerboard-hall-ff4a7361")
        #expect(MachineIdentity.clientID(nodeID: "tickerboard", nodeIDGiven: false, machineHash: nil) == "tickerboard-tickerboard")
        var s = MQTTSettings()
        #expect(!s.nodeIDGiven)
        _ = s.apply("node-id", "hall")
        #expect(s.nodeIDGiven)
    }

    @Test("command topics become control requests; anything else is ignored with a reason")
    func actions() {
        let model = BridgeModel(settings: settings, version: "1")
        let b = "tickerboard/hall/"
        #expect(model.action(topic: b + "instrument/set", payload: "SAP.DE") == .request(.show(instrument: "SAP.DE", range: nil)))
        // Issue 54 item 2: a retained `screen/set OFF` was carried out again at every start and reconnect.
        if case .ignore(let why) = model.action(topic: b + "screen/set", payload: "OFF", retained: true) {
            #expect(why.contains("retained"))
        } else { Issue.record("a retained command was carried out") }
        #expect(model.action(topic: b + "range/set", payload: "1y") == .request(.range("1Y")))
        #expect(model.action(topic: b + "scene/set", payload: "watchlist") == .request(.scene("watchlist")))
        #expect(model.action(topic: b + "screen/set", payload: "OFF") == .request(.screen(.off)))
        #expect(model.action(topic: b + "screen/set", payload: "on") == .request(.screen(.on)))
        #expect(model.action(topic: b + "screen_mode/set", payload: "auto") == .request(.screen(.auto)))
        #expect(model.action(topic: b + "brightness/set", payload: "40") == .request(.brightness(40)))
        #expect(model.action(topic: b + "cycling/set", payload: "OFF") == .request(.pause))
        #expect(model.action(topic: b + "next/set", payload: "PRESS") == .request(.next))
        #expect(model.action(topic: b + "reload/set", payload: "PRESS") == .request(.reload))
        #expect(model.action(topic: b + "screenshot/set", payload: "PRESS") == .screenshot)
        #expect(model.action(topic: b + "message/set", payload: "Closed \"early\"") == .request(.message(text: "Closed \"early\"", seconds: nil)))
        #expect(model.action(topic: b + "message/set", payload: "") == .request(.clearMessage))
        if case .ignore = model.action(topic: b + "screen/set", payload: "dim") {} else { Issue.record("dim accepted") }
        if case .ignore = model.action(topic: b + "brightness/set", payload: "400") {} else { Issue.record("400 accepted") }
        if case .ignore = model.action(topic: b + "reboot/set", payload: "PRESS") {} else { Issue.record("reboot accepted") }
        if case .ignore = model.action(topic: "other/instrument/set", payload: "A") {} else { Issue.record("foreign topic") }
    }

    @Test("state: the screen as ON/OFF, the selects, and each instrument's JSON")
    func state() {
        let model = BridgeModel(settings: settings, version: "1")
        var status = KioskStatus()
        status.instrumentID = "AAPL"
        status.range = "1Y"
        status.scene = .chart
        status.display = "off-control"
        status.screenControl = "off"
        status.paused = true
        let messages = Dictionary(uniqueKeysWithValues: model.state(status, instruments: instruments).map {
            ($0.topic, String(decoding: $0.payload, as: UTF8.self))
        })
        #expect(messages["tickerboard/hall/screen/state"] == "OFF")
        #expect(messages["tickerboard/hall/brightness/state"] == "0")
        status.display = "presenting"
        status.level = 40
        #expect(model.state(status, instruments: instruments).contains(BridgeMessage("tickerboard/hall/brightness/state", "40")))
        #expect(messages["tickerboard/hall/scene/state"] == "chart")
        #expect(messages["tickerboard/hall/cycling/state"] == "OFF")
        #expect(messages["tickerboard/hall/screen_mode/state"] == "off")
        #expect(messages["tickerboard/hall/instrument/aapl/state"] == "{\"price\": 190.5, \"change\": 1.5, \"change_percent\": 0.79, \"market\": \"open\", \"stale\": false, \"last_data\": null, \"problem\": false}")
        #expect(messages["tickerboard/hall/instrument/sap_de_e26dcc8c/state"] == "{\"price\": null, \"change\": null, \"change_percent\": null, \"market\": null, \"stale\": false, \"last_data\": null, \"problem\": false}")
    }

    /// Issue 53 item 5. The required fields are Home Assistant's own: its MQTT platform schemas
    /// (`MQTT_RO_SCHEMA` requires `state_topic`, `MQTT_RW_SCHEMA` `command_topic`, the event
    /// platform `event_types`, select `options`, image one of `url_topic`/`image_topic`).
    @Test("every discovery config carries the fields Home Assistant requires; health entities are diagnostics")
    func requiredFields() throws {
        let model = BridgeModel(settings: settings, version: "1.2.3")
        let messages = model.discovery(instruments: instruments, ranges: ["1D"], scenes: ["chart"], temperature: true)
        let required: [String: [String]] = ["sensor": ["state_topic"], "binary_sensor": ["state_topic"], "event": ["state_topic", "event_types"],
                                            "select": ["command_topic", "options"], "light": ["command_topic"], "switch": ["command_topic"],
                                            "button": ["command_topic"], "text": ["command_topic"], "image": ["image_topic"]]
        var components = Set<String>()
        for m in messages {
            let component = m.topic.split(separator: "/")[1]
            components.insert(String(component))
            let text = String(decoding: m.payload, as: UTF8.self)
            for field in try #require(required[String(component)], "\(component) has no rule") {
                #expect(text.contains("\"\(field)\": "), "\(m.topic) lacks \(field)")
            }
        }
        #expect(components == Set(required.keys))
        let byTopic = Dictionary(uniqueKeysWithValues: messages.map { ($0.topic, String(decoding: $0.payload, as: UTF8.self)) })
        for object in ["missed_vblanks", "memory", "version", "soc_temperature", "data_aapl"] {
            #expect(byTopic["homeassistant/sensor/hall/\(object)/config"]?.contains("\"entity_category\": \"diagnostic\"") == true, "\(object)")
        }
        #expect(byTopic["homeassistant/binary_sensor/hall/problem/config"]?.contains("\"device_class\": \"problem\"") == true)
        #expect(byTopic["homeassistant/event/hall/alert/config"]?.contains("\"event_types\": [\"above\", \"below\", \"move\", \"stale\"]") == true)
        #expect(byTopic["homeassistant/sensor/hall/data_aapl/config"]?.contains("\"device_class\": \"timestamp\"") == true)
        // Without a thermal zone there is no temperature sensor.
        #expect(!model.discovery(instruments: [], ranges: [], scenes: []).contains { $0.topic.contains("soc_temperature") })
    }

    @Test("health: problem, missed vblanks, memory, version, temperature and each instrument's newest data as the status says them")
    func health() throws {
        let model = BridgeModel(settings: settings, version: "1.2.3")
        // A hand-written `ctl status` and `ctl instruments` answer in the daemon's field names.
        let status = try #require(BridgeModel.status(fromJSON: """
            {"display": "presenting", "problem": "AAPL.csv: no data", "problems": [{"file": "a", "line": 1}],
             "missed_vblanks": 7, "rss_kb": 34816, "alert_firings": []}
            """))
        let listing = try #require(BridgeModel.listing(fromJSON: """
            {"instruments": [{"id": "AAPL", "name": "Apple", "currency": "USD", "last_data_time": 1733436000, "problem": true},
                             {"id": "B", "last_data_time": 1e300}]}
            """))
        let messages = Dictionary(uniqueKeysWithValues: model.state(status, instruments: listing.instruments, temperature: 48.3).map {
            ($0.topic, String(decoding: $0.payload, as: UTF8.self))
        })
        #expect(messages["tickerboard/hall/problem/state"] == "ON")
        #expect(messages["tickerboard/hall/problem/attributes"] == "{\"problem\": \"AAPL.csv: no data\", \"listed\": 1}")
        #expect(messages["tickerboard/hall/missed_vblanks/state"] == "7")
        // 34,816 kB / 1,024 = 34 MiB exactly.
        #expect(messages["tickerboard/hall/memory/state"] == "34")
        #expect(messages["tickerboard/hall/version/state"] == "1.2.3")
        #expect(messages["tickerboard/hall/soc_temperature/state"] == "48.3")
        // 1733436000 is 2024-12-05T22:00:00+00:00 (Python's datetime.fromtimestamp(t, timezone.utc)).
        #expect(messages["tickerboard/hall/instrument/aapl/state"]?.contains("\"last_data\": \"2024-12-05T22:00:00+00:00\", \"problem\": true") == true)
        // A time past year 9999 is left out, not written as a date Home Assistant cannot read.
        #expect(messages["tickerboard/hall/instrument/b/state"]?.contains("\"last_data\": null") == true)
        var fine = KioskStatus()
        fine.display = "presenting"
        #expect(model.state(fine, instruments: []).contains(BridgeMessage("tickerboard/hall/problem/state", "OFF")))
        #expect(BridgeModel.iso8601(0) == "1970-01-01T00:00:00+00:00")
        #expect(BridgeModel.iso8601(951_782_400) == "2000-02-29T00:00:00+00:00")
        #expect(BridgeModel.iso8601(253_402_300_799) == "9999-12-31T23:59:59+00:00")
    }

    @Test("an alert firing becomes one event, not retained; firings from before the bridge started are passed over")
    func alertEvents() throws {
        let model = BridgeModel(settings: settings, version: "1")
        let status = try #require(BridgeModel.status(fromJSON: """
            {"alert_firings": [{"name": "apple-high", "instrument": "AAPL", "kind": "above", "condition": "above 200", "fired_at": 1733436000},
                               {"name": "old", "instrument": "AAPL", "kind": "below", "condition": "below 100", "fired_at": 1733435000},
                               {"name": "bad", "kind": "above"}]}
            """))
        #expect(status.alertFirings.count == 2)
        var seen = Set<String>()
        let events = model.alertEvents(status.alertFirings, seen: &seen, since: 1_733_435_500)
        #expect(events == [BridgeMessage("tickerboard/hall/alert/event",
                                         "{\"event_type\": \"above\", \"alert\": \"apple-high\", \"instrument\": \"AAPL\", \"condition\": \"above 200\", \"fired_at\": \"2024-12-05T22:00:00+00:00\"}",
                                         retain: false)])
        // The next poll sees the same firings: nothing again. A new firing of the same alert fires.
        #expect(model.alertEvents(status.alertFirings, seen: &seen, since: 1_733_435_500).isEmpty)
        var again = status.alertFirings[0]
        again.firedAt += 3600
        #expect(model.alertEvents([again], seen: &seen, since: 1_733_435_500).count == 1)
    }

    /// The files as a Raspberry Pi 4 has them (`/sys/class/thermal/thermal_zone0/type` is
    /// `cpu-thermal`, `temp` in millidegrees: drivers/thermal/broadcom/bcm2711_thermal.c) and a PC.
    @Test("the SoC's temperature: the CPU's zone in millidegrees, else the first that reads; nonsense is none")
    func socTemperature() {
        #expect(BridgeModel.socTemperature(zones: [("cpu-thermal\n", "48312\n")]) == 48.3)
        #expect(BridgeModel.socTemperature(zones: [("acpitz", "27800"), ("x86_pkg_temp", "45000")]) == 45)
        #expect(BridgeModel.socTemperature(zones: [("acpitz", "27850")]) == 27.9)
        #expect(BridgeModel.socTemperature(zones: [("cpu-thermal", "-274000"), ("gpu", "999999")]) == nil)
        #expect(BridgeModel.socTemperature(zones: []) == nil)
    }

    @Test("[mqtt] keys: good values taken, bad ones named")
    func settingsKeys() {
        var s = MQTTSettings()
        #expect(s.apply("port", "8883") == .ok && s.port == 8883)
        #expect(s.apply("port", "0") != .ok)
        #expect(s.apply("base-topic", "home/tb") == .ok && s.base == "home/tb")
        #expect(s.apply("base-topic", "home/#") != .ok)
        #expect(s.apply("node-id", "living room") != .ok)
        #expect(s.apply("password-file", "secret") != .ok)
        #expect(s.apply("poll-interval", "10s") == .ok && s.pollSeconds == 10)
        #expect(s.apply("poll-interval", "0") != .ok)
        #expect(s.apply("colour", "red") == .unknown)
    }
}

/// Issue 54 item 6: forged log lines, a password file with CRLF, a client certificate without a CA
/// that connected in plain text.
@Suite struct BridgeHygieneTests {
    @Test("a logged payload stays on one line; TLS whenever any TLS key is set")
    func hygiene() throws {
        #expect(BridgeService.oneLine("ON\n<0>FORGED\r\u{1B}[31m") == "ON\\n<0>FORGED\\r\\u{1b}[31m")
        #expect(BridgeService.oneLine("AAPL € 1,5") == "AAPL € 1,5")
        var s = MQTTSettings()
        #expect(!s.usesTLS)
        s.tlsCertFile = "/etc/tickerboard/client.pem"
        s.tlsKeyFile = "/etc/tickerboard/client.key"
        #expect(s.usesTLS)
    }

    @Test("a credential file saved with CRLF gives its first line without the \\r")
    func crlfSecret() throws {
        let path = "/tmp/tb-secret-\(getpid())"
        let f = try #require(fopen(path, "w"))
        fputs("hunter2\r\nsecond line\r\n", f)
        fclose(f)
        defer { unlink(path) }
        #expect(try BridgeService.secret(path) == "hunter2")
    }
}
