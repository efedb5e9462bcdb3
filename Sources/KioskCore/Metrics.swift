/// The status file again, for Prometheus: `tickerboard.prom` in the text exposition format, for
/// node_exporter's textfile collector (issue 53 item 4). Names and types follow Prometheus'
/// conventions: base units (seconds, bytes, a ratio for the level), counters end in `_total`,
/// one HELP and one TYPE line per family, label values escaped (`PrometheusText`).

import Feed
import StatusModel

/// What the metrics say of one instrument: its newest data and whether something is wrong with it.
public struct InstrumentHealth: Sendable, Equatable {
    public var id: String
    /// Unix seconds of the newest bar (nil: no data yet).
    public var lastDataTime: Int64?
    /// Waiting for its data, or the fetcher reports an error.
    public var problem: Bool

    public init(id: String, lastDataTime: Int64?, problem: Bool) {
        self.id = id
        self.lastDataTime = lastDataTime
        self.problem = problem
    }
}

public enum Metrics {
    /// The file's text. `now` (Unix seconds) dates the data's age; `cpuSeconds` is the process's.
    public static func text(status s: KioskStatus, instruments: [InstrumentHealth], cpuSeconds: Double,
                            version: String, now: Double) -> String {
        var out = PrometheusText()
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Double?)]) {
            out.family(name, type, help, samples)
        }
        func one(_ name: String, _ type: String, _ help: String, _ value: Double?) { out.one(name, type, help, value) }
        func label(_ value: String) -> String { PrometheusText.label(value) }
        family("tickerboard_build_info", "gauge", "The running version (always 1).", [("{version=\(label(version))}", 1)])
        one("tickerboard_frames_total", "counter", "Frames presented since the daemon started.", Double(s.frames))
        one("tickerboard_missed_vblanks_total", "counter", "Vertical blanks missed while the picture moved.", Double(s.missedVblanks))
        one("tickerboard_input_to_flip_p50_seconds", "gauge", "Median time from a touch to the frame that shows it.",
            s.inputToFlipP50.map { $0 / 1000 })
        one("tickerboard_input_to_flip_p99_seconds", "gauge", "99th percentile of the time from a touch to its frame.",
            s.inputToFlipP99.map { $0 / 1000 })
        one("tickerboard_render_p50_seconds", "gauge", "Median time to draw a frame (recent frames).", s.renderP50.map { $0 / 1000 })
        one("tickerboard_render_p99_seconds", "gauge", "99th percentile of the time to draw a frame.", s.renderP99.map { $0 / 1000 })
        one("tickerboard_copy_p50_seconds", "gauge", "Median time to copy a frame towards scanout.", s.copyP50.map { $0 / 1000 })
        one("tickerboard_copy_p99_seconds", "gauge", "99th percentile of the time to copy a frame towards scanout.",
            s.copyP99.map { $0 / 1000 })
        one("tickerboard_scanout_bytes_per_frame", "gauge", "Mean bytes copied to the scanout buffer per frame.", s.scanoutBytesPerFrame)
        one("tickerboard_resident_memory_bytes", "gauge", "Resident memory (VmRSS).", s.rssKB.map { Double($0) * 1024 })
        one("tickerboard_peak_resident_memory_bytes", "gauge", "Peak resident memory (VmHWM).", s.peakRSSKB.map { Double($0) * 1024 })
        one("tickerboard_open_fds", "gauge", "Open file descriptors.", s.openFDs.map(Double.init))
        one("tickerboard_cpu_seconds_total", "counter", "User and system CPU time of the daemon.", cpuSeconds)
        one("tickerboard_screen_on", "gauge", "1 while the screen shows a picture, 0 while it is off or waits for a display.",
            s.display == "presenting" ? 1 : 0)
        one("tickerboard_screen_level_ratio", "gauge", "The screen's light, 0 (off) to 1 (full).", s.level.map { Double($0) / 100 })
        one("tickerboard_ambient_light_lux", "gauge", "The ambient-light sensor's last reading.", s.lux)
        one("tickerboard_data_stale", "gauge", "1 while the instrument on screen shows data older than it should be.", s.stale ? 1 : 0)
        one("tickerboard_config_problems", "gauge", "Config and data problems the status file lists.", Double(s.problems.count))
        one("tickerboard_alerts_active", "gauge", "Alerts in effect.", Double(s.alerts.count))
        family("tickerboard_instrument_data_age_seconds", "gauge", "Age of each instrument's newest data.",
               instruments.map { ("{instrument=\(label($0.id))}", $0.lastDataTime.map { max(0, now - Double($0)) }) })
        family("tickerboard_instrument_problem", "gauge", "1 while an instrument waits for its data or its fetch fails.",
               instruments.map { ("{instrument=\(label($0.id))}", $0.problem ? 1 : 0) })
        family("tickerboard_output_flips_total", "counter", "Flips completed on each output.",
               s.outputs.map { ("{output=\(label($0.name))}", Double($0.flips)) })
        return out.text
    }
}
