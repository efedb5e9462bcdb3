// libFuzzer harness: what reaches tickerboard-mqtt from outside — a command topic's payload from
// the broker (anyone who may publish there) and the daemon's status and instruments JSON — through
// the bridge's pure parts: the request each payload becomes, and the state it publishes; and the
// status JSON through the status model's own reader, which `tickerboard ctl` uses.
import Bridge
import Control
import Foundation
import FuzzSupport
import StatusModel

@main enum Harness { static func main() { runFuzzer(fuzz) } }

let objects = ["screen", "cycling", "screen_mode", "instrument", "range", "scene", "brightness", "message", "next",
               "reload", "screenshot", "other"]
let model = BridgeModel(settings: MQTTSettings(), version: "fuzz")

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    // The first byte picks the topic and the retained flag; the rest is the payload (as the
    // service decodes it) and, after a NUL, the daemon's JSON.
    let parts = rest.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    let payload = String(decoding: parts.first ?? [], as: UTF8.self)
    let topic = model.base + "/" + objects[Int(first & 0x7F) % objects.count] + "/set"
    let retained = first & 0x80 != 0
    switch model.action(topic: topic, payload: payload, retained: retained) {
    case .request(let command):
        fuzzCheck(!retained, "a retained command is never carried out")
        // What the bridge sends is a request the daemon reads back as the same one.
        fuzzCheck(ControlCommand.parse(command.line) == .success(command), "round trip of \(command.line)")
        if case .message(let text, _) = command {
            fuzzCheck(text.count <= ControlCommand.messageCharacters && text.unicodeScalars.count <= ControlCommand.messageScalars,
                      "a message within its bounds")
        }
    case .screenshot:
        fuzzCheck(!retained, "a retained screenshot press is not replayed")
    case .ignore(let why):
        fuzzCheck(why.utf8.count < 4096, "a reason stays short")
    }
    // The daemon's answers, one field bad or all of them: the state published is valid JSON where
    // it is JSON, and never more than the instruments and the fixed topics.
    for json in parts.dropFirst() {
        let text = String(decoding: json, as: UTF8.self)
        let status = BridgeModel.status(fromJSON: text) ?? KioskStatus()
        // `ctl status` reads the same text with the status model's own JSON reader (no Foundation):
        // what it reads, it writes as a status it can read again.
        if let read = KioskStatus(json: text) {
            fuzzCheck(KioskStatus(json: read.compactJSON) != nil && KioskStatus(json: read.json) != nil, "a status read is written as one")
        }
        let listing = BridgeModel.listing(fromJSON: text) ?? BridgeListing()
        // The fuzzed text as a thermal zone's files, too.
        let temperature = BridgeModel.socTemperature(zones: [("cpu-thermal", text)])
        fuzzCheck(temperature.map { $0 >= -40 && $0 <= 150 } ?? true, "a temperature in range")
        let messages = model.state(status, instruments: listing.instruments, temperature: temperature)
        fuzzCheck(messages.count <= 15 + listing.instruments.count, "one state topic per instrument")
        var seen = Set<String>()
        for event in model.alertEvents(status.alertFirings, seen: &seen, since: 0) {
            let object = (try? JSONSerialization.jsonObject(with: Data(event.payload))) as? [String: Any]
            fuzzCheck(!event.retain && BridgeModel.alertKinds.contains(object?["event_type"] as? String ?? ""),
                      "an alert event is JSON of a known kind: \(String(decoding: event.payload, as: UTF8.self))")
        }
        for m in messages where m.topic.hasSuffix("/state") && m.topic.contains("/instrument/") && m.payload.first == UInt8(ascii: "{") {
            fuzzCheck((try? JSONSerialization.jsonObject(with: Data(m.payload))) != nil,
                      "instrument state is JSON: \(String(decoding: m.payload, as: UTF8.self))")
        }
        _ = model.discovery(instruments: listing.instruments, ranges: listing.ranges, scenes: listing.scenes)
    }
    return 0
}
