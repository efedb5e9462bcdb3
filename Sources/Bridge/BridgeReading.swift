// What the bridge reads from the daemon (`ctl status`, `ctl instruments`), one field at a time: a
// field of the wrong type or out of range is left out, never the whole answer (issue 54: one close
// of 1e303 once took the device offline). The status is the daemon's own type, decoded by its own
// `init(from:)`; the instruments' answer is read here. Pure; fuzzed by fuzz-bridge.
import Feed
import Foundation
import StatusModel

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

    /// `ctl status`'s line: nil when it is not a JSON object. Beyond what the type takes, what
    /// Home Assistant is shown must make sense: a level in percent, no negative count or memory,
    /// a firing's time between 1970 and 1e12 s.
    public static func status(fromJSON text: String) -> KioskStatus? {
        guard var s = try? JSONDecoder().decode(KioskStatus.self, from: Data(text.utf8)) else { return nil }
        s.level = s.level.flatMap { (0...100).contains($0) ? $0 : nil }
        s.settledFrame = max(0, s.settledFrame)
        s.missedVblanks = max(0, s.missedVblanks)
        s.rssKB = s.rssKB.flatMap { $0 >= 0 ? $0 : nil }
        s.alertFirings = s.alertFirings.filter { $0.firedAt >= 0 && $0.firedAt < 1_000_000_000_000 }
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
