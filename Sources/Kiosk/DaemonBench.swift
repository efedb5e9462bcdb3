import InputModel
import KioskCore
import LinuxIO

/// What `bench --mode daemon` measures: the daemon's own loop (core, shell, renderer and present
/// path on the headless display) over a stretch of presented frames, counted by the kernel and by
/// the screen's tally, never estimated.
package struct DaemonBenchFigures: Sendable {
    package var frames = 0
    /// User and system CPU of the whole process.
    package var userNanos: UInt64 = 0
    package var systemNanos: UInt64 = 0
    /// CPU of the drawing alone (the rasterizer's share of the same frames), and of the display's
    /// present (the copy towards scanout) on the same thread.
    package var drawNanos: UInt64 = 0
    package var presentNanos: UInt64 = 0
    package var minorFaults = 0
    /// nil without the preloaded counter (`Tests/Bench/alloc-count.c`).
    package var allocations: (calls: UInt64, bytes: UInt64)?
    package var drawnPixels = 0
    package var copiedBytes = 0
    package var framePixels = 0
    /// VmHWM at the end, KiB.
    package var peakKB = 0
}

extension Daemon {
    /// Starts the daemon, runs its loop until `warmup` frames are on screen, then measures the next
    /// `frames`. `gesture(i)` (a scrub) is sent once frame `i` has been presented. Nil when the frames
    /// do not come within `timeout` seconds of real time.
    package func measureFrames(warmup: Int, frames: Int, timeout: Double,
                               gesture: ((Int) -> Gesture?)? = nil) throws(Errno) -> DaemonBenchFigures? {
        try start()
        defer { _ = finish() }
        screen.measuresCPU = true
        let deadline = MonotonicClock.now() &+ UInt64(timeout * 1e9)
        var sent = -1
        func run(until n: Int) throws(Errno) -> Bool {
            while screen.tally.frames < n {
                if MonotonicClock.now() > deadline || exitRequested != nil { return false }
                try step(timeout: .milliseconds(100))
                let i = screen.tally.frames
                if let gesture, i != sent, let g = gesture(i) {
                    sent = i
                    send(.gesture(g, inputMicros: nil))
                }
            }
            return true
        }
        guard try run(until: warmup) else { return nil }
        let before = screen.tally, cpu0 = ProcessCPUTime.now(), faults0 = PageFaults.minor(), alloc0 = AllocationCounter.read()
        guard try run(until: warmup + frames) else { return nil }
        let cpu1 = ProcessCPUTime.now(), faults1 = PageFaults.minor(), alloc1 = AllocationCounter.read()
        let after = screen.tally
        var f = DaemonBenchFigures()
        f.frames = after.frames - before.frames
        f.userNanos = cpu1.user &- cpu0.user
        f.systemNanos = cpu1.system &- cpu0.system
        f.drawNanos = after.drawCPUNanos &- before.drawCPUNanos
        f.presentNanos = after.presentCPUNanos &- before.presentCPUNanos
        f.minorFaults = faults1 - faults0
        if let a = alloc0, let b = alloc1 { f.allocations = (b.calls &- a.calls, b.bytes &- a.bytes) }
        f.drawnPixels = after.drawnPixels - before.drawnPixels
        f.copiedBytes = after.copiedBytes - before.copiedBytes
        f.framePixels = after.framePixels - before.framePixels
        f.peakKB = ProcessResources.peakKB()
        return f
    }
}
