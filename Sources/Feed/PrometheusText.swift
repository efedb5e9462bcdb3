/// Prometheus' text exposition format as node_exporter's textfile collector reads it, for the
/// daemon's `tickerboard.prom` (KioskCore's `Metrics`) and the fetcher's `tickerboard-fetch.prom`:
/// one HELP and one TYPE line per family before its samples, label values escaped, and a sample
/// without a finite value left out (a family with none is left out whole: no NaN reaches a scraper).
public struct PrometheusText: Sendable {
    public private(set) var text = ""

    public init() {}

    public mutating func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Double?)]) {
        let present = samples.compactMap { sample in sample.value.flatMap { $0.isFinite ? (sample.labels, $0) : nil } }
        guard !present.isEmpty else { return }
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (labels, value) in present { text += name + labels + " " + Self.number(value) + "\n" }
    }

    public mutating func one(_ name: String, _ type: String, _ help: String, _ value: Double?) {
        family(name, type, help, [("", value)])
    }

    /// `{name="value",…}`, values escaped.
    public static func labels(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { "\($0.0)=\(label($0.1))" }.joined(separator: ",") + "}"
    }

    /// A label value in quotes, with `\`, `"` and newlines escaped as the format asks (and nothing
    /// else: the format has no other escapes).
    public static func label(_ value: String) -> String {
        var out = "\""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// Integers without a fraction; others as Swift writes a Double (Go's parser takes both).
    public static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
