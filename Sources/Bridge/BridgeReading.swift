// What the bridge reads from the daemon (`ctl status`, `ctl instruments`), one field at a time: a
// field of the wrong type or out of range is left out, never the whole answer (issue 54: one close
// of 1e303 once took the device offline). Pure; fuzzed by fuzz-bridge.
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
        return s
    }

    /// `ctl instruments`' line: nil when it is not a JSON object; an item without a string id is left out.
    public static func listing(fromJSON text: String) -> BridgeListing? {
        guard let o = object(text) else { return nil }
        var out = BridgeListing()
        out.instruments = (o["instruments"] as? [[String: Any]] ?? []).compactMap { item in
            guard let id = item["id"] as? String, !id.isEmpty else { return nil }
            return BridgeInstrument(id: id, name: item["name"] as? String ?? id, currency: item["currency"] as? String ?? "",
                                    price: number(item["price"]), change: number(item["change"]),
                                    changePercent: number(item["change_percent"]),
                                    sessionState: item["session_state"] as? String, stale: item["stale"] as? Bool ?? false)
        }
        out.ranges = (o["ranges"] as? [Any] ?? []).compactMap { $0 as? String }
        out.scenes = (o["scenes"] as? [Any] ?? []).compactMap { $0 as? String }
        return out
    }
}
