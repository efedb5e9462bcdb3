// What the bridge reads from the daemon (`ctl status`, `ctl instruments`), one field at a time: a
// field of the wrong type or out of range is left out, never the whole answer (issue 54: one close
// of 1e303 once took the device offline). Pure; fuzzed by fuzz-bridge.
import Feed
import Foundation

/// The instruments and their offers, as `ctl instruments` lists them.
public struct BridgeListing: Sendable, Equatable {
    public var instruments: [BridgeInstrument] = []
    public var ranges: [String] = []
    public var scenes: [String] = []

    public init() {}
}

extension BridgeModel {
    /// A JSON object's fields, or nil when the text is not one.
    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// A finite number (JSON has no other, but a field may hold a string or be absent).
    private static func number(_ v: Any?) -> Double? {
        guard let d = v as? Double, d.isFinite else { return nil }
        return d
    }

    /// `ctl status`'s line: nil when it is not a JSON object.
    public static func status(fromJSON text: String) -> BridgeStatus? {
        guard let o = object(text) else { return nil }
        var s = BridgeStatus()
        s.instrumentID = o["instrument_id"] as? String
        s.range = o["range"] as? String
        s.scene = o["scene"] as? String
        s.display = o["display"] as? String
        s.screenControl = o["screen_control"] as? String
        s.paused = o["paused"] as? Bool ?? false
        s.message = o["message"] as? String
        s.level = number(o["level"]).flatMap { $0 >= 0 && $0 <= 100 ? Int($0) : nil }
        s.settledFrame = number(o["settled_frame"]).flatMap { $0 >= 0 && $0 < 9e15 ? Int($0) : nil } ?? 0
        s.problem = o["problem"] as? String
        s.problemCount = (o["problems"] as? [Any])?.count ?? 0
        s.missedVblanks = number(o["missed_vblanks"]).flatMap { $0 >= 0 && $0 < 9e15 ? Int($0) : nil }
        s.rssKB = number(o["rss_kb"]).flatMap { $0 >= 0 && $0 < 9e15 ? Int($0) : nil }
        s.alertFirings = (o["alert_firings"] as? [Any] ?? []).compactMap { item in
            guard let f = item as? [String: Any], let name = f["name"] as? String, let kind = f["kind"] as? String,
                  let at = number(f["fired_at"]).flatMap({ $0 >= 0 && $0 < 1e12 ? Int64($0) : nil }) else { return nil }
            return AlertFiring(name: name, instrument: f["instrument"] as? String, kind: kind,
                                     condition: f["condition"] as? String ?? "", firedAt: at)
        }
        return s
    }

    /// `ctl instruments`' line: nil when it is not a JSON object; an item without a string id is left out.
    public static func listing(fromJSON text: String) -> BridgeListing? {
        guard let o = object(text) else { return nil }
        var out = BridgeListing()
        out.instruments = (o["instruments"] as? [[String: Any]] ?? []).compactMap { item in
            guard let id = item["id"] as? String, !id.isEmpty else { return nil }
            var inst = BridgeInstrument(id: id, name: item["name"] as? String ?? id, currency: item["currency"] as? String ?? "",
                                        price: number(item["price"]), change: number(item["change"]),
                                        changePercent: number(item["change_percent"]),
                                        sessionState: item["session_state"] as? String, stale: item["stale"] as? Bool ?? false)
            // Years 1-9999 only: an ISO 8601 date has four digits of year.
            inst.lastDataTime = number(item["last_data_time"]).flatMap { $0 >= -62_135_596_800 && $0 < 253_402_300_800 ? Int64($0) : nil }
            inst.problem = item["problem"] as? Bool ?? false
            return inst
        }
        out.ranges = (o["ranges"] as? [Any] ?? []).compactMap { $0 as? String }
        out.scenes = (o["scenes"] as? [Any] ?? []).compactMap { $0 as? String }
        return out
    }
}
