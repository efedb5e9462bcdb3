@testable import KioskCore
import StatusModel
import Testing

/// The Prometheus text file (issue 53 item 4). The expected text is written out by hand from the
/// exposition format's rules (prometheus.io, "Exposition formats"): HELP and TYPE once per family,
/// samples after them, base units, label values with `\`, `"` and newline escaped. The headless
/// check holds a running daemon's file to prometheus_client's parser.
@Suite struct MetricsTests {
    @Test("a status as metrics: counters, gauges in base units, labels escaped, absent values left out")
    func text() {
        var s = KioskStatus()
        s.frames = 812
        s.missedVblanks = 3
        s.display = "presenting"
        s.level = 40
        s.lux = 20
        s.rssKB = 2048
        s.inputToFlipP50 = 12.5
        s.renderP50 = 1.75
        s.copyP99 = 0.5
        s.alerts = ["aapl-300"]
        s.outputs = [KioskStatus.Output(name: "first", connector: "HDMI-A-1", mode: nil, scene: .chart, state: "running",
                                        flips: 810, missedVblanks: 3)]
        let text = Metrics.text(status: s, instruments: [
            InstrumentHealth(id: "AAPL", lastDataTime: 1_000, problem: false),
            InstrumentHealth(id: "we\"ird\\id", lastDataTime: nil, problem: true),
        ], cpuSeconds: 1.25, version: "0.1.0", now: 1_090)
        let expected = """
            # HELP tickerboard_build_info The running version (always 1).
            # TYPE tickerboard_build_info gauge
            tickerboard_build_info{version="0.1.0"} 1
            # HELP tickerboard_frames_total Frames presented since the daemon started.
            # TYPE tickerboard_frames_total counter
            tickerboard_frames_total 812
            # HELP tickerboard_missed_vblanks_total Vertical blanks missed while the picture moved.
            # TYPE tickerboard_missed_vblanks_total counter
            tickerboard_missed_vblanks_total 3
            # HELP tickerboard_input_to_flip_p50_seconds Median time from a touch to the frame that shows it.
            # TYPE tickerboard_input_to_flip_p50_seconds gauge
            tickerboard_input_to_flip_p50_seconds 0.0125
            # HELP tickerboard_render_p50_seconds Median time to draw a frame (recent frames).
            # TYPE tickerboard_render_p50_seconds gauge
            tickerboard_render_p50_seconds 0.00175
            # HELP tickerboard_copy_p99_seconds 99th percentile of the time to copy a frame towards scanout.
            # TYPE tickerboard_copy_p99_seconds gauge
            tickerboard_copy_p99_seconds 0.0005
            # HELP tickerboard_resident_memory_bytes Resident memory (VmRSS).
            # TYPE tickerboard_resident_memory_bytes gauge
            tickerboard_resident_memory_bytes 2097152
            # HELP tickerboard_cpu_seconds_total User and system CPU time of the daemon.
            # TYPE tickerboard_cpu_seconds_total counter
            tickerboard_cpu_seconds_total 1.25
            # HELP tickerboard_screen_on 1 while the screen shows a picture, 0 while it is off or waits for a display.
            # TYPE tickerboard_screen_on gauge
            tickerboard_screen_on 1
            # HELP tickerboard_screen_level_ratio The screen's light, 0 (off) to 1 (full).
            # TYPE tickerboard_screen_level_ratio gauge
            tickerboard_screen_level_ratio 0.4
            # HELP tickerboard_ambient_light_lux The ambient-light sensor's last reading.
            # TYPE tickerboard_ambient_light_lux gauge
            tickerboard_ambient_light_lux 20
            # HELP tickerboard_data_stale 1 while the instrument on screen shows data older than it should be.
            # TYPE tickerboard_data_stale gauge
            tickerboard_data_stale 0
            # HELP tickerboard_config_problems Config and data problems the status file lists.
            # TYPE tickerboard_config_problems gauge
            tickerboard_config_problems 0
            # HELP tickerboard_alerts_active Alerts in effect.
            # TYPE tickerboard_alerts_active gauge
            tickerboard_alerts_active 1
            # HELP tickerboard_instrument_data_age_seconds Age of each instrument's newest data.
            # TYPE tickerboard_instrument_data_age_seconds gauge
            tickerboard_instrument_data_age_seconds{instrument="AAPL"} 90
            # HELP tickerboard_instrument_problem 1 while an instrument waits for its data or its fetch fails.
            # TYPE tickerboard_instrument_problem gauge
            tickerboard_instrument_problem{instrument="AAPL"} 0
            tickerboard_instrument_problem{instrument="we\\"ird\\\\id"} 1
            # HELP tickerboard_output_flips_total Flips completed on each output.
            # TYPE tickerboard_output_flips_total counter
            tickerboard_output_flips_total{output="first"} 810

            """
        #expect(text == expected)
        if text != expected {
            for (a, b) in zip(text.split(separator: "\n"), expected.split(separator: "\n")) where a != b { Issue.record("\(a) != \(b)") }
        }
    }
}
